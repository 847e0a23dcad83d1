package dev.svc.sdk;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Datasets, their items and runs under {@code /api/public}. Reached through {@link SvcClient#datasets()}.
 */
public final class Datasets {
    private final ApiTransport transport;

    Datasets(ApiTransport transport) {
        this.transport = transport;
    }

    /** Creates the dataset, or returns it unchanged when the name exists. */
    public Dataset create(String name) {
        return create(name, null, null);
    }

    /** Creates the dataset, or updates the description and metadata given of an existing one. */
    public Dataset create(String name, String description, Object metadata) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", Objects.requireNonNull(name, "name"));
        body.put("description", description);
        body.put("metadata", metadata);
        return Json.read(transport.send("POST", "/api/public/v2/datasets", body, true), Dataset.class);
    }

    /** The dataset of that name; a {@link SvcApiException} with status 404 when there is none. */
    public Dataset get(String name) {
        return Json.read(transport.get("/api/public/v2/datasets/" + ApiTransport.segment(name)), Dataset.class);
    }

    /** Creates the item, or updates it when its id exists in the same dataset. */
    public DatasetItem createItem(NewDatasetItem item) {
        return Json.read(transport.send("POST", "/api/public/dataset-items", item.body(), true), DatasetItem.class);
    }

    /** One item by id (archived ones too). */
    public DatasetItem getItem(String id) {
        return Json.read(transport.get("/api/public/dataset-items/" + ApiTransport.segment(id)), DatasetItem.class);
    }

    /** A page of the dataset's active items, newest first; {@code page} from 1, {@code limit} 1..100. */
    public Page<DatasetItem> listItems(String datasetName, int page, int limit) {
        Map<String, Object> query = new LinkedHashMap<>();
        query.put("datasetName", Objects.requireNonNull(datasetName, "datasetName"));
        query.put("page", page);
        query.put("limit", limit);
        return page(transport.get("/api/public/dataset-items" + ApiTransport.query(query)), DatasetItem.class);
    }

    /** Links an item to the trace that ran it, in the named run (created when new). */
    public DatasetRunItem createRunItem(NewRunItem runItem) {
        return Json.read(transport.send("POST", "/api/public/dataset-run-items", runItem.body(), false), DatasetRunItem.class);
    }

    /** The run with its items. */
    public DatasetRun getRun(String datasetName, String runName) {
        return Json.read(transport.get("/api/public/datasets/" + ApiTransport.segment(datasetName) + "/runs/" + ApiTransport.segment(runName)),
                DatasetRun.class);
    }

    /** A page of the dataset's runs, newest first (without their items). */
    public Page<DatasetRun> listRuns(String datasetName, int page, int limit) {
        return page(transport.get("/api/public/datasets/" + ApiTransport.segment(datasetName) + "/runs"
                + ApiTransport.query(Map.of("page", page, "limit", limit))), DatasetRun.class);
    }

    private static <T> Page<T> page(JsonNode node, Class<T> item) {
        JavaType type = Json.MAPPER.getTypeFactory().constructParametricType(Page.class, item);
        return Json.MAPPER.convertValue(node, type);
    }
}
