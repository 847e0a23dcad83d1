package dev.svc.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The export's request size: batches cut to {@code maxExportBatchBytes}, a batch refused with 413 halved and sent
 * again, and a single span refused as too large dropped (counted, logged) without its batch. Against a local OTLP
 * intake that refuses bodies over a size, as a proxy or an older server does; a real service storing a large trace is
 * in LargeTraceTest.
 */
class BatchSizeTest {
    /** Answers 413 to bodies over {@code limit} bytes; records the bodies it accepts. */
    static final class LimitedIntake implements AutoCloseable {
        final HttpServer server;
        final List<String> accepted = Collections.synchronizedList(new ArrayList<>());
        final List<Integer> refused = Collections.synchronizedList(new ArrayList<>());

        LimitedIntake(int limit) throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/", exchange -> {
                byte[] body = exchange.getRequestBody().readAllBytes();
                if (body.length > limit) {
                    refused.add(body.length);
                    exchange.sendResponseHeaders(413, -1);
                } else {
                    accepted.add(new String(body, StandardCharsets.ISO_8859_1));
                    exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
                    exchange.sendResponseHeaders(200, -1);
                }
                exchange.close();
            });
            server.start();
        }

        String url() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        /** The span names (markers {@code <name>;}) found in the accepted bodies, each occurrence once. */
        List<String> deliveredNames(List<String> expected) {
            List<String> found = new ArrayList<>();
            for (String body : accepted) for (String name : expected) if (body.contains(name)) found.add(name);
            Collections.sort(found);
            return found;
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    private static List<String> names(int count, String prefix) {
        return IntStream.range(0, count).mapToObj(i -> String.format("%s-%03d;", prefix, i)).collect(Collectors.toList());
    }

    private static SvcTracing tracing(LimitedIntake intake, long maxBytes) {
        return SvcTracing.builder().baseUrl(intake.url()).publicKey("pk-svc-a").secretKey("sk-svc-b").flushAtExit(false)
                .maxExportBatchBytes(maxBytes).build();
    }

    private static void trace(SvcTracing tracing, List<String> names, int bytes) {
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(tracing.spanProcessor()).build();
        Tracer tracer = provider.get("batch-size");
        for (String name : names) tracer.spanBuilder(name).setAttribute("langfuse.observation.input", "x".repeat(bytes)).startSpan().end();
        assertTrue(tracing.flush(Duration.ofSeconds(20)));
    }

    @Test
    void aBatchRefusedWith413IsHalvedUntilEachPartIsTaken() throws Exception {
        try (LimitedIntake intake = new LimitedIntake(300_000)) {
            SvcTracing tracing = tracing(intake, 4L * 1024 * 1024);
            List<String> expected = names(40, "s");
            trace(tracing, expected, 30_000);
            assertFalse(intake.refused.isEmpty(), "the 1.2 MB batch was refused first");
            assertEquals(expected, intake.deliveredNames(expected));
            assertEquals(0, tracing.droppedSpans());
            tracing.shutdown();
        }
    }

    @Test
    void maxExportBatchBytesCutsBatchesBeforeTheyAreSent() throws Exception {
        try (LimitedIntake intake = new LimitedIntake(300_000)) {
            SvcTracing tracing = tracing(intake, 100_000);
            List<String> expected = names(40, "s");
            trace(tracing, expected, 30_000);
            assertEquals(List.of(), intake.refused);
            assertEquals(expected, intake.deliveredNames(expected));
            assertTrue(intake.accepted.size() >= 13, intake.accepted.size() + " requests");
            tracing.shutdown();
            assertThrows(IllegalArgumentException.class, () -> SvcTracing.builder().maxExportBatchBytes(0));
        }
    }

    @Test
    void aSingleSpanTooLargeIsDroppedAndLoggedAndItsBatchDelivered() throws Exception {
        List<String> logged = Collections.synchronizedList(new ArrayList<>());
        Logger logger = Logger.getLogger("dev.svc.sdk");
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                logged.add(record.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        logger.addHandler(handler);
        try (LimitedIntake intake = new LimitedIntake(300_000)) {
            SvcTracing tracing = tracing(intake, 4L * 1024 * 1024);
            SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(tracing.spanProcessor()).build();
            Tracer tracer = provider.get("batch-size");
            List<String> small = names(10, "small");
            for (String name : small.subList(0, 5)) tracer.spanBuilder(name).startSpan().end();
            tracer.spanBuilder("huge;").setAttribute("langfuse.observation.input", "x".repeat(500_000)).startSpan().end();
            for (String name : small.subList(5, 10)) tracer.spanBuilder(name).startSpan().end();
            assertFalse(tracing.flush(Duration.ofSeconds(20)), "not all sent");
            assertEquals(small, intake.deliveredNames(small));
            assertEquals(1, tracing.droppedSpans());
            assertTrue(logged.stream().anyMatch(m -> m.contains("\"huge;\"") && m.contains("too large (413)")), logged.toString());
            tracing.shutdown();
        } finally {
            logger.removeHandler(handler);
        }
    }
}
