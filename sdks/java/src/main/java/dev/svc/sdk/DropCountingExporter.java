package dev.svc.sdk;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Sends each batch in requests of bounded size (halving a part the server refuses with 413), counts the spans of
 * exports that failed (the OTLP exporter has already retried them) and logs the first loss once, whether a failed
 * export or a full queue ({@code queueDrops}). Never throws: the batch processor runs it on its own thread, and a
 * failure is a result code, not an exception.
 */
final class DropCountingExporter implements SpanExporter {
    private static final System.Logger LOG = System.getLogger("dev.svc.sdk");

    private final SpanExporter delegate;
    private final String endpoint;
    private final LongSupplier queueDrops;
    private final long maxBatchBytes;
    private final Duration partTimeout;
    private final AtomicLong failedSpans = new AtomicLong();
    private final AtomicLong completedSpans = new AtomicLong();
    private final AtomicBoolean logged = new AtomicBoolean();

    DropCountingExporter(SpanExporter delegate, String endpoint, LongSupplier queueDrops, long maxBatchBytes, Duration partTimeout) {
        this.delegate = delegate;
        this.endpoint = endpoint;
        this.queueDrops = queueDrops;
        this.maxBatchBytes = maxBatchBytes;
        this.partTimeout = partTimeout;
    }

    long failedSpans() {
        return failedSpans.get();
    }

    /** Spans whose export has finished, sent or failed. */
    long completedSpans() {
        return completedSpans.get();
    }

    /** Sends the batch in parts of at most {@code maxBatchBytes}, one after the other, each awaited. */
    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
        if (queueDrops.getAsLong() > 0) logOnce("the span queue was full (or the processor shut down) and spans were dropped");
        boolean delivered = true;
        for (List<SpanData> part : SizedExport.partsOf(spans, maxBatchBytes)) delivered &= send(part);
        return delivered ? CompletableResultCode.ofSuccess() : CompletableResultCode.ofFailure();
    }

    /** Sends one part; a part refused with 413 is halved and each half sent, down to single spans. */
    private boolean send(List<SpanData> spans) {
        CompletableResultCode result = exportSafely(spans).join(partTimeout.toNanos(), TimeUnit.NANOSECONDS);
        if (result.isSuccess()) {
            completedSpans.addAndGet(spans.size());
            return true;
        }
        Throwable cause = result.getFailureThrowable();
        if (cause != null && SizedExport.statusOf(cause).orElse(0) == 413) {
            if (spans.size() > 1) {
                int half = (spans.size() + 1) / 2;
                boolean first = send(spans.subList(0, half));
                return send(spans.subList(half, spans.size())) && first;
            }
            SpanData span = spans.get(0);
            LOG.log(System.Logger.Level.ERROR, "svc: span \"" + span.getName() + "\" (trace " + span.getTraceId() + ", span "
                    + span.getSpanId() + ", about " + SizedExport.estimatedBytes(span) + " bytes) was refused by " + endpoint
                    + " as too large (413) and is dropped.");
        }
        failedSpans.addAndGet(spans.size());
        completedSpans.addAndGet(spans.size());
        logOnce("could not send " + spans.size() + " span(s) to " + endpoint + (cause == null ? "" : " (" + cause + ")"));
        return false;
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
