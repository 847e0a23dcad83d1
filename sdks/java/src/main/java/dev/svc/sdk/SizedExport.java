package dev.svc.sdk;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.common.export.HttpResponse;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalInt;

/**
 * Export requests of bounded size: a batch is cut into parts of at most {@code maxBytes} (estimated before encoding and
 * compression), and the HTTP status of a failed export is read so that a part refused with 413 can be halved.
 */
final class SizedExport {
    private SizedExport() {}

    private static int bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    private static long attributeBytes(Attributes attributes) {
        long[] total = {0};
        attributes.forEach((key, value) -> total[0] += 8 + bytes(key.getKey()) + bytes(String.valueOf(value)));
        return total[0];
    }

    /** What one span adds to an OTLP request, roughly: its texts plus a fixed share for ids, times and framing. */
    static long estimatedBytes(SpanData span) {
        long total = 120 + bytes(span.getName()) + attributeBytes(span.getAttributes());
        for (EventData event : span.getEvents()) total += attributeBytes(event.getAttributes());
        for (LinkData link : span.getLinks()) total += attributeBytes(link.getAttributes());
        return total;
    }

    /** The spans in order, cut into parts of at most {@code maxBytes}; a span larger than that is a part of its own. */
    static List<List<SpanData>> partsOf(Collection<SpanData> spans, long maxBytes) {
        List<List<SpanData>> parts = new ArrayList<>();
        List<SpanData> current = new ArrayList<>();
        long size = 0;
        for (SpanData span : spans) {
            long spanBytes = estimatedBytes(span);
            if (!current.isEmpty() && size + spanBytes > maxBytes) {
                parts.add(current);
                current = new ArrayList<>();
                size = 0;
            }
            current.add(span);
            size += spanBytes;
        }
        if (!current.isEmpty()) parts.add(current);
        return parts;
    }

    /**
     * The HTTP status of a failed OTLP export, when the server answered: the exporter's failure carries the response
     * ({@code FailedExportException.HttpExportException#getResponse}, in a package the exporter keeps internal, so
     * read by name).
     */
    static OptionalInt statusOf(Throwable failure) {
        try {
            Object response = failure.getClass().getMethod("getResponse").invoke(failure);
            return response instanceof HttpResponse http ? OptionalInt.of(http.getStatusCode()) : OptionalInt.empty();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return OptionalInt.empty();
        }
    }
}
