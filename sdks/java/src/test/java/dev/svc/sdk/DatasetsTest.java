package dev.svc.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SvcServiceExtension.class)
class DatasetsTest {
    @Test
    void datasetsItemsAndRunItemsRoundTrip(SvcService svc) throws Exception {
        SvcClient client = svc.client();
        String name = "evals/qa-" + UUID.randomUUID().toString().substring(0, 8);
        Dataset created = client.datasets().create(name, "questions and answers", Map.of("owner", "sdk-test"));
        assertEquals(name, created.name());
        assertEquals("default", created.projectId());
        Dataset fetched = client.datasets().get(name);
        assertEquals(created.id(), fetched.id());
        assertEquals("questions and answers", fetched.description());
        assertEquals(Map.of("owner", "sdk-test"), fetched.metadata());
        assertEquals(created.id(), client.datasets().create(name).id(), "create is an upsert by name");

        DatasetItem first = client.datasets().createItem(NewDatasetItem.builder(name)
                .input(Map.of("question", "2+2?")).expectedOutput("4").metadata(Map.of("level", 1)).build());
        DatasetItem second = client.datasets().createItem(NewDatasetItem.builder(name).id("item-" + UUID.randomUUID())
                .input("capital of France?").expectedOutput("Paris").sourceTraceId("0123456789abcdef0123456789abcdef")
                .sourceObservationId("0123456789abcdef").build());
        assertEquals("ACTIVE", first.status());
        assertEquals(Map.of("question", "2+2?"), first.input());
        assertEquals("4", first.expectedOutput());
        assertEquals(created.id(), first.datasetId());
        assertEquals("0123456789abcdef0123456789abcdef", client.datasets().getItem(second.id()).sourceTraceId());
        assertEquals("0123456789abcdef", client.datasets().getItem(second.id()).sourceObservationId());

        Page<DatasetItem> page = client.datasets().listItems(name, 1, 10);
        assertEquals(2, page.meta().totalItems());
        assertEquals(List.of(first.id(), second.id()).stream().sorted().toList(), page.data().stream().map(DatasetItem::id).sorted().toList());
        assertEquals(1, client.datasets().listItems(name, 2, 1).data().size());

        DatasetItem archived = client.datasets().createItem(NewDatasetItem.builder(name).id(second.id()).archived(true).build());
        assertEquals("ARCHIVED", archived.status());
        assertEquals("capital of France?", archived.input(), "fields not given keep their value");
        assertEquals(1, client.datasets().listItems(name, 1, 10).meta().totalItems());

        String traceId = "abcdefabcdefabcdefabcdefabcdef01";
        DatasetRunItem runItem = client.datasets().createRunItem(NewRunItem.builder("run-1", first.id()).traceId(traceId)
                .observationId("abcdefabcdef0001").runDescription("first run").metadata(Map.of("model", "demo")).build());
        assertEquals(traceId, runItem.traceId());
        assertEquals("run-1", runItem.datasetRunName());
        assertEquals(first.id(), runItem.datasetItemId());

        DatasetRun run = client.datasets().getRun(name, "run-1");
        assertEquals("first run", run.description());
        assertEquals(Map.of("model", "demo"), run.metadata());
        assertEquals(List.of(runItem.id()), run.datasetRunItems().stream().map(DatasetRunItem::id).toList());
        Page<DatasetRun> runs = client.datasets().listRuns(name, 1, 10);
        assertEquals(List.of("run-1"), runs.data().stream().map(DatasetRun::name).toList());

        // The stored link, read past the SDK.
        JsonNode stored = new RawApi(svc).json("GET", "/api/public/dataset-run-items?datasetId=" + created.id() + "&runName=run-1", null);
        assertEquals(traceId, stored.get("data").get(0).get("traceId").asText());
        assertEquals("abcdefabcdef0001", stored.get("data").get(0).get("observationId").asText());
    }

    @Test
    void missingDatasetsItemsAndRunsAre404(SvcService svc) {
        SvcClient client = svc.client();
        SvcApiException dataset = assertThrows(SvcApiException.class, () -> client.datasets().get("no-such-dataset"));
        assertEquals(404, dataset.status());
        assertEquals("Dataset not found", dataset.serverMessage());
        assertEquals(404, assertThrows(SvcApiException.class, () -> client.datasets().getItem("no-such-item")).status());
        assertEquals(404, assertThrows(SvcApiException.class,
                () -> client.datasets().createRunItem(NewRunItem.builder("r", "no-such-item").traceId("t").build())).status());
        assertThrows(IllegalArgumentException.class, () -> NewRunItem.builder("r", "i").build());
    }
}
