package dev.svc.sdk;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Counts the spans of exports that failed (the OTLP exporter has already retried them) and logs the first loss
 * once, whether a failed export or a full queue ({@code queueDrops}). Never throws: the batch processor runs it on
 * its own thread, and a failure is a result code, not an exception.
 */
final class DropCountingExporter implements SpanExporter {
    private static final System.Logger LOG = System.getLogger("dev.svc.sdk");

    private final SpanExporter delegate;
    private final String endpoint;
    private final LongSupplier queueDrops;
    private final AtomicLong failedSpans = new AtomicLong();
    private final AtomicLong completedSpans = new AtomicLong();
    private final AtomicBoolean logged = new AtomicBoolean();

    DropCountingExporter(SpanExporter delegate, String endpoint, LongSupplier queueDrops) {
        this.delegate = delegate;
        this.endpoint = endpoint;
        this.queueDrops = queueDrops;
    }

    long failedSpans() {
        return failedSpans.get();
    }

    /** Spans whose export has finished, sent or failed. */
    long completedSpans() {
        return completedSpans.get();
    }

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
        if (queueDrops.getAsLong() > 0) logOnce("the span queue was full (or the processor shut down) and spans were dropped");
        CompletableResultCode result = exportSafely(spans);
        int count = spans.size();
        result.whenComplete(() -> {
            if (!result.isSuccess()) {
                failedSpans.addAndGet(count);
                Throwable cause = result.getFailureThrowable();
                logOnce("could not send " + count + " span(s) to " + endpoint + (cause == null ? "" : " (" + cause + ")"));
            }
            completedSpans.addAndGet(count);
        });
        return result;
    }

    private CompletableResultCode exportSafely(Collection<SpanData> spans) {
        try {
            return delegate.export(spans);
        } catch (RuntimeException e) {
            return CompletableResultCode.ofExceptionalFailure(e);
        }
    }

    private void logOnce(String what) {
        if (logged.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.WARNING, "svc: " + what + ". Spans that cannot be sent are dropped and counted "
                    + "(SvcTracing.droppedSpans()); this warning is logged once.");
        }
    }

    @Override
    public CompletableResultCode flush() {
        return delegate.flush();
    }

    @Override
    public CompletableResultCode shutdown() {
        return delegate.shutdown();
    }
}
