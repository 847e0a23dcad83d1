package dev.svc.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SvcServiceExtension.class)
class ScoresTest {
    private static String hex(int length) {
        return UUID.randomUUID().toString().replace("-", "").substring(0, length);
    }

    @Test
    void numericCategoricalAndBooleanScoresOnATraceAnObservationAndASession(SvcService svc) throws Exception {
        SvcClient client = svc.client();
        String traceId = hex(32);
        String spanId = hex(16);
        String sessionId = "session-" + hex(8);

        String numericId = client.scores().create(NewScore.numeric("accuracy", 0.92).traceId(traceId).comment("close enough")
                .metadata(Map.of("judge", "human")).build());
        Score numeric = client.scores().get(numericId);
        assertEquals(ScoreDataType.NUMERIC, numeric.dataType());
        assertEquals(0.92, numeric.value());
        assertNull(numeric.stringValue());
        assertEquals(traceId, numeric.traceId());
        assertEquals("close enough", numeric.comment());
        assertEquals(Map.of("judge", "human"), numeric.metadata());
        assertEquals("API", numeric.source());

        String configId = new RawApi(svc).json("POST", "/api/public/score-configs",
                "{\"name\":\"tone-" + hex(6) + "\",\"dataType\":\"CATEGORICAL\",\"categories\":[{\"label\":\"friendly\",\"value\":1},{\"label\":\"curt\",\"value\":0}]}").get("id").asText();
        String categoricalId = client.scores().create(NewScore.categorical("tone", "friendly").traceId(traceId).observationId(spanId)
                .configId(configId).build());
        Score categorical = client.scores().get(categoricalId);
        assertEquals(ScoreDataType.CATEGORICAL, categorical.dataType());
        assertEquals("friendly", categorical.stringValue());
        assertEquals(1.0, categorical.value(), "the config's number for the category");
        assertEquals(spanId, categorical.observationId());
        assertEquals(configId, categorical.configId());
        assertTrue(categorical.name().startsWith("tone-"), "a score with a config takes the config's name");

        String boolId = client.scores().create(NewScore.bool("resolved", true).sessionId(sessionId).environment("staging").build());
        Score bool = client.scores().get(boolId);
        assertEquals(ScoreDataType.BOOLEAN, bool.dataType());
        assertEquals(1.0, bool.value());
        assertEquals("True", bool.stringValue());
        assertEquals(sessionId, bool.sessionId());
        assertNull(bool.traceId());
        assertEquals("staging", bool.environment());

        // The same id again updates the score rather than adding one.
        assertEquals(numericId, client.scores().create(NewScore.numeric("accuracy", 0.5).id(numericId).traceId(traceId).build()));
        assertEquals(0.5, client.scores().get(numericId).value());
    }

    @Test
    void aValueOutsideItsConfigIsA400NamingTheField(SvcService svc) throws Exception {
        String configId = new RawApi(svc).json("POST", "/api/public/score-configs",
                "{\"name\":\"quality-" + hex(6) + "\",\"dataType\":\"NUMERIC\",\"minValue\":0,\"maxValue\":1}").get("id").asText();
        SvcApiException e = assertThrows(SvcApiException.class,
                () -> svc.client().scores().create(NewScore.numeric("quality", 7).traceId(hex(32)).configId(configId).build()));
        assertEquals(400, e.status());
        assertTrue(e.getMessage().contains("value"), e.getMessage());
    }

    @Test
    void aScoreNeedsExactlyOneTarget(SvcService svc) {
        assertThrows(IllegalArgumentException.class, () -> NewScore.numeric("x", 1).build());
        assertThrows(IllegalArgumentException.class, () -> NewScore.numeric("x", 1).traceId("t").sessionId("s").build());
        assertThrows(IllegalArgumentException.class, () -> NewScore.numeric("x", 1).sessionId("s").observationId("o").build());
        assertEquals(404, assertThrows(SvcApiException.class, () -> svc.client().scores().get("no-such-score")).status());
    }
}
