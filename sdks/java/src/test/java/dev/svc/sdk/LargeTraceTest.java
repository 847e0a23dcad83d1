package dev.svc.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One trace of 200 spans of 30 KB each (6 MB of text) through SvcTracing into the real service: all 201 observations
 * stored. The SDK sends it in requests of at most 4 MiB; the intake would also take it whole.
 */
@ExtendWith(SvcServiceExtension.class)
class LargeTraceTest {
    @Test
    void aTraceOf200SpansOf30KbIsStoredWhole(SvcService svc) throws Exception {
        SvcTracing tracing = SvcTracing.builder().baseUrl(svc.adminUrl).publicKey(svc.publicKey).secretKey(svc.secretKey)
                .flushAtExit(false).build();
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(tracing.spanProcessor()).build();
        Tracer tracer = provider.get("large-trace");
        SecureRandom random = new SecureRandom();
        Span root = tracer.spanBuilder("agent-run").startSpan();
        Context parent = Context.root().with(root);
        for (int i = 0; i < 200; i++) {
            byte[] bytes = new byte[15_000];
            random.nextBytes(bytes);
            tracer.spanBuilder("step-" + i).setParent(parent).setAttribute("langfuse.observation.input", HexFormat.of().formatHex(bytes))
                    .startSpan().end();
        }
        root.end();
        assertTrue(tracing.flush(Duration.ofSeconds(60)), "every span sent");
        assertEquals(0, tracing.droppedSpans());
        JsonNode trace = new RawApi(svc).await("/api/public/traces/" + root.getSpanContext().getTraceId(),
                t -> t.get("observations").size() == 201, Duration.ofSeconds(30));
        int steps = 0;
        for (JsonNode o : trace.get("observations")) {
            if (o.get("name").asText().startsWith("step-")) {
                steps++;
                assertEquals(30_000, o.get("input").asText().length());
            }
        }
        assertEquals(200, steps);
        provider.shutdown();
    }
}
