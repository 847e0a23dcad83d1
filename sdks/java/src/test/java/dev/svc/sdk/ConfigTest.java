package dev.svc.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Settings come from the environment, builder values override them, and a bad one is named at construction. */
class ConfigTest {
    private static final Map<String, String> GOOD = Map.of(
            "SVC_PUBLIC_KEY", "pk-svc-1", "SVC_SECRET_KEY", "sk-svc-1", "SVC_BASE_URL", "http://localhost:8081/");

    private static Map<String, String> without(String variable) {
        Map<String, String> env = new HashMap<>(GOOD);
        env.remove(variable);
        return env;
    }

    private static Map<String, String> with(String variable, String value) {
        Map<String, String> env = new HashMap<>(GOOD);
        env.put(variable, value);
        return env;
    }

    @Test
    void environmentConfiguresTheClientAndBuilderValuesOverrideIt() {
        assertEquals("http://localhost:8081", new SvcClient.Builder(GOOD).build().baseUrl().toString());
        assertEquals("http://127.0.0.1:9/base", new SvcClient.Builder(GOOD).baseUrl("http://127.0.0.1:9/base/").build().baseUrl().toString());
        // A value given to the builder stands in for a missing variable.
        assertEquals("http://localhost:8081", new SvcClient.Builder(without("SVC_SECRET_KEY")).secretKey("sk-x").build().baseUrl().toString());
    }

    @Test
    void aMissingSettingIsAnErrorNamingTheVariable() {
        for (String variable : GOOD.keySet()) {
            SvcConfigException e = assertThrows(SvcConfigException.class, () -> new SvcClient.Builder(without(variable)).build());
            assertTrue(e.getMessage().startsWith(variable + " is not set"), e.getMessage());
            SvcConfigException blank = assertThrows(SvcConfigException.class, () -> new SvcClient.Builder(with(variable, "  ")).build());
            assertTrue(blank.getMessage().startsWith(variable + " is not set"), blank.getMessage());
            SvcConfigException tracing = assertThrows(SvcConfigException.class, () -> new SvcTracing.Builder(without(variable)).build());
            assertTrue(tracing.getMessage().startsWith(variable + " is not set"), tracing.getMessage());
        }
    }

    @Test
    void aMalformedSettingIsAnErrorNamingTheVariable() {
        Map<String, String> bad = Map.of(
                "SVC_PUBLIC_KEY", "sk-svc-swapped",
                "SVC_SECRET_KEY", "pk-svc-swapped",
                "SVC_BASE_URL", "localhost:8081");
        bad.forEach((variable, value) -> {
            SvcConfigException e = assertThrows(SvcConfigException.class, () -> new SvcClient.Builder(with(variable, value)).build());
            assertTrue(e.getMessage().startsWith(variable + " is malformed"), e.getMessage());
        });
        assertTrue(assertThrows(SvcConfigException.class, () -> new SvcClient.Builder(with("SVC_PUBLIC_KEY", "sk-svc-swapped")).build())
                .getMessage().contains("looks like the secret key"));
        assertTrue(assertThrows(SvcConfigException.class, () -> new SvcClient.Builder(with("SVC_BASE_URL", "http://localhost:8081/api/public")).build())
                .getMessage().contains("without /api/public"));
        assertTrue(assertThrows(SvcConfigException.class, () -> new SvcClient.Builder(with("SVC_BASE_URL", "http://localhost:8080/v1")).build())
                .getMessage().contains("without /v1"));
        assertTrue(assertThrows(SvcConfigException.class, () -> new SvcClient.Builder(with("SVC_BASE_URL", "http://u:p@localhost:8081")).build())
                .getMessage().startsWith("SVC_BASE_URL is malformed"));
        assertTrue(assertThrows(SvcConfigException.class, () -> new SvcClient.Builder(with("SVC_BASE_URL", "ftp://localhost")).build())
                .getMessage().startsWith("SVC_BASE_URL is malformed"));
    }

    @Test
    void gatewaySettingsAcceptATrailingV1AndNameTheirVariables() {
        assertEquals("http://gw:8080", Settings.gatewayUrl(null, Map.of("SVC_GATEWAY_URL", "http://gw:8080/v1/")).toString());
        assertEquals("http://gw:8080", Settings.gatewayUrl("http://gw:8080", Map.of()).toString());
        assertTrue(assertThrows(SvcConfigException.class, () -> Settings.gatewayUrl(null, Map.of())).getMessage().startsWith("SVC_GATEWAY_URL is not set"));
        assertTrue(assertThrows(SvcConfigException.class, () -> Settings.gatewayKey(null, Map.of())).getMessage().startsWith("SVC_GATEWAY_KEY is not set"));
        assertTrue(assertThrows(SvcConfigException.class, () -> Settings.gatewayKey("a b", Map.of())).getMessage().startsWith("SVC_GATEWAY_KEY is malformed"));
    }

    @Test
    void openTelemetrysExporterLogsAreQuietedUnlessKeptOrConfigured() {
        java.util.logging.Logger otlp = java.util.logging.Logger.getLogger("io.opentelemetry.exporter.otlp.internal.HttpExporter");
        java.util.logging.Level before = otlp.getLevel();
        try {
            otlp.setLevel(null);
            new SvcTracing.Builder(GOOD).exporterLogs(true).flushAtExit(false).build().shutdown();
            assertEquals(null, otlp.getLevel());
            new SvcTracing.Builder(GOOD).flushAtExit(false).build().shutdown();
            assertEquals(java.util.logging.Level.OFF, otlp.getLevel());
            otlp.setLevel(java.util.logging.Level.FINE);
            new SvcTracing.Builder(GOOD).flushAtExit(false).build().shutdown();
            assertEquals(java.util.logging.Level.FINE, otlp.getLevel(), "a level the application set is left alone");
        } finally {
            otlp.setLevel(before);
        }
    }

    @Test
    void badBuilderNumbersAreRefused() {
        SvcClient.Builder b = new SvcClient.Builder(GOOD);
        assertThrows(IllegalArgumentException.class, () -> b.maxRetries(-1));
        assertThrows(IllegalArgumentException.class, () -> b.timeout(java.time.Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> b.promptCacheTtl(java.time.Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> new SvcTracing.Builder(GOOD).maxQueueSize(0));
    }
}
