package dev.svc.sdk;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SvcServiceExtension.class)
class TracingTest {
    private static SvcTracing tracing(SvcService svc) {
        return SvcTracing.builder().baseUrl(svc.adminUrl).publicKey(svc.publicKey).secretKey(svc.secretKey).flushAtExit(false).build();
    }

    private static JsonNode observation(JsonNode trace, String id) {
        for (JsonNode o : trace.get("observations")) if (o.get("id").asText().equals(id)) return o;
        throw new AssertionError("no observation " + id + " in " + trace);
    }

    @Test
    void traceAndGenerationAttributesLandAsTheDashboardShowsThem(SvcService svc) throws Exception {
        SvcClient client = svc.client();
        String promptName = "tracing-prompt-" + System.nanoTime();
        TextPrompt prompt = client.prompts().createText(promptName, "Answer {{q}}", PromptOptions.builder().labels("production").build());

        SvcTracing tracing = tracing(svc);
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(tracing.spanProcessor()).build();
        Tracer tracer = provider.get("sdk-test");
        Instant firstToken = Instant.parse("2026-01-02T03:04:05.678Z");
        Span root = tracer.spanBuilder("agent-run").startSpan();
        Span generation;
        try (Scope rootScope = root.makeCurrent()) {
            SvcSpans.updateCurrentTrace(TraceAttributes.builder().name("support-agent").tags("beta", "eu")
                    .metadata(Map.of("tenant", "acme", "attempt", 2)).input(Map.of("question", "Where is my order?")).build());
            generation = tracer.spanBuilder("llm-call").startSpan();
            SvcSpans.setGeneration(generation, GenerationAttributes.builder().model("gpt-4o-mini")
                    .modelParameters(Map.of("temperature", 0.2, "max_tokens", 256)).usage(12, 30)
                    .usageDetails(Map.of("input_cached_tokens", 4L)).cost(0.00042)
                    .costDetails(Map.of("input", 0.0001, "output", 0.00032)).completionStartTime(firstToken)
                    .input(List.of(Map.of("role", "user", "content", "Where is my order?"))).output("It ships today.")
                    .prompt(prompt).build());
            generation.end();
            SvcSpans.setTrace(root, TraceAttributes.builder().output("It ships today.").sessionId("session-1").userId("user-1").build());
        }
        root.end();
        assertTrue(tracing.flush(Duration.ofSeconds(10)));
        assertEquals(0, tracing.droppedSpans());

        String traceId = root.getSpanContext().getTraceId();
        JsonNode trace = new RawApi(svc).await("/api/public/traces/" + traceId, t -> t.get("observations").size() == 2, Duration.ofSeconds(20));
        assertEquals("support-agent", trace.get("name").asText());
        assertEquals("session-1", trace.get("sessionId").asText());
        assertEquals("user-1", trace.get("userId").asText());
        assertEquals(List.of("beta", "eu"), Json.MAPPER.convertValue(trace.get("tags"), List.class).stream().sorted().toList());
        assertEquals("acme", trace.get("metadata").get("tenant").asText());
        assertEquals(2, trace.get("metadata").get("attempt").asInt());
        assertEquals("Where is my order?", trace.get("input").get("question").asText());
        assertEquals("It ships today.", trace.get("output").asText());

        JsonNode rootObservation = observation(trace, root.getSpanContext().getSpanId());
        assertEquals("agent-run", rootObservation.get("name").asText());
        JsonNode gen = observation(trace, generation.getSpanContext().getSpanId());
        assertEquals("GENERATION", gen.get("type").asText());
        assertEquals(root.getSpanContext().getSpanId(), gen.get("parentObservationId").asText());
        assertEquals("gpt-4o-mini", gen.get("model").asText());
        assertEquals(0.2, gen.get("modelParameters").get("temperature").asDouble());
        assertEquals(256, gen.get("modelParameters").get("max_tokens").asInt());
        assertEquals(12, gen.get("usageDetails").get("input").asInt());
        assertEquals(30, gen.get("usageDetails").get("output").asInt());
        assertEquals(42, gen.get("usageDetails").get("total").asInt());
        assertEquals(4, gen.get("usageDetails").get("input_cached_tokens").asInt());
        assertEquals(0.00042, gen.get("costDetails").get("total").asDouble());
        assertEquals(0.00032, gen.get("costDetails").get("output").asDouble());
        assertEquals(0.00042, trace.get("totalCost").asDouble());
        assertEquals("2026-01-02T03:04:05.678Z", gen.get("completionStartTime").asText());
        assertEquals("Where is my order?", gen.get("input").get(0).get("content").asText());
        assertEquals("It ships today.", gen.get("output").asText());
        assertEquals(promptName, gen.get("promptName").asText());
        assertEquals(1, gen.get("promptVersion").asInt());
        provider.shutdown();
    }

    @Test
    void theSvcContextStampsSessionAndUserOnSpansStartedInIt(SvcService svc) throws Exception {
        SvcTracing tracing = SvcTracing.builder().baseUrl(svc.adminUrl).publicKey(svc.publicKey).secretKey(svc.secretKey)
                .maxExportBatchSize(1).scheduleDelay(Duration.ofMillis(200)).flushAtExit(false).build();
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(tracing.spanProcessor()).build();
        Span span;
        assertTrue(SvcContext.current().sessionId().isEmpty());
        try (Scope ctx = SvcContext.current().withSessionId("chat-42").withUserId("ada").makeCurrent()) {
            assertEquals("chat-42", SvcContext.current().sessionId().orElseThrow());
            assertEquals("ada", SvcContext.from(io.opentelemetry.context.Context.current()).userId().orElseThrow());
            span = provider.get("sdk-test").spanBuilder("job").startSpan();
            span.end();
        }
        assertTrue(tracing.flush(Duration.ofSeconds(10)));
        JsonNode trace = new RawApi(svc).await("/api/public/traces/" + span.getSpanContext().getTraceId(), t -> true, Duration.ofSeconds(20));
        assertEquals("chat-42", trace.get("sessionId").asText());
        assertEquals("ada", trace.get("userId").asText());
        assertEquals("job", trace.get("name").asText());
        provider.shutdown();
    }

    @Test
    void exportToADeadServiceNeverThrowsAndCountsTheDropsLoggingOnce(SvcService svc) throws Exception {
        List<LogRecord> warnings = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) warnings.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        // The SDK's logger and OpenTelemetry's (whose exporter would otherwise log each failed export).
        Logger sdkLogger = Logger.getLogger("dev.svc.sdk");
        Logger otelLogger = Logger.getLogger("io.opentelemetry");
        sdkLogger.addHandler(capture);
        otelLogger.addHandler(capture);
        try {
            SvcTracing tracing = SvcTracing.builder().baseUrl("http://127.0.0.1:" + AuthTest.deadPort()).publicKey(svc.publicKey)
                    .secretKey(svc.secretKey).exportTimeout(Duration.ofSeconds(2)).flushAtExit(false).build();
            SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(tracing.spanProcessor()).build();
            Tracer tracer = provider.get("sdk-test");
            assertDoesNotThrow(() -> {
                tracer.spanBuilder("lost-1").startSpan().end();
                assertFalse(tracing.flush(Duration.ofSeconds(10)), "first flush, dropped " + tracing.droppedSpans());
                tracer.spanBuilder("lost-2").startSpan().end();
                tracer.spanBuilder("lost-3").startSpan().end();
                assertFalse(tracing.flush(Duration.ofSeconds(10)), "second flush, dropped " + tracing.droppedSpans());
            });
            assertEquals(3, tracing.droppedSpans());
            assertEquals(1, warnings.size(), "logged once: " + warnings.stream().map(LogRecord::getMessage).toList());
            assertTrue(warnings.get(0).getMessage().contains("could not send 1 span(s)"), warnings.get(0).getMessage());
            assertDoesNotThrow(provider::shutdown);
            assertDoesNotThrow(tracing::shutdown);
        } finally {
            sdkLogger.removeHandler(capture);
            otelLogger.removeHandler(capture);
        }
    }

    @Test
    void aFullQueueDropsAndCountsSpansWithoutBlocking(SvcService svc) throws Exception {
        // A server that accepts connections and never answers: the first export hangs until its timeout while
        // later spans find the one-span queue full.
        try (ServerSocket silent = new ServerSocket(0)) {
            Thread acceptor = new Thread(() -> {
                List<Socket> held = new ArrayList<>();
                try {
                    while (true) held.add(silent.accept());
                } catch (IOException closed) {
                    held.forEach(s -> {
                        try {
                            s.close();
                        } catch (IOException ignored) {
                            // closing anyway
                        }
                    });
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            SvcTracing tracing = SvcTracing.builder().baseUrl("http://127.0.0.1:" + silent.getLocalPort()).publicKey(svc.publicKey)
                    .secretKey(svc.secretKey).maxQueueSize(1).exportTimeout(Duration.ofSeconds(3)).flushAtExit(false).build();
            SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(tracing.spanProcessor()).build();
            Tracer tracer = provider.get("sdk-test");
            for (int i = 0; i < 20; i++) tracer.spanBuilder("burst-" + i).startSpan().end();
            long dropped = tracing.droppedSpans();
            assertTrue(dropped >= 18, "dropped " + dropped);
            assertDoesNotThrow(provider::shutdown);
        }
    }
}
