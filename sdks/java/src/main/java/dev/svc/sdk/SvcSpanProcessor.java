package dev.svc.sdk;

import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import java.util.concurrent.atomic.AtomicLong;

/** The batch processor, plus the session and user of the {@link SvcContext} stamped on every span it sees start. */
final class SvcSpanProcessor implements SpanProcessor {
    private final SpanProcessor batch;
    private final AtomicLong endedSampled = new AtomicLong();

    SvcSpanProcessor(SpanProcessor batch) {
        this.batch = batch;
    }

    @Override
    public void onStart(Context parentContext, ReadWriteSpan span) {
        SvcContext svc = SvcContext.from(parentContext);
        svc.sessionId().ifPresent(id -> span.setAttribute(AttributeNames.SESSION_ID, id));
        svc.userId().ifPresent(id -> span.setAttribute(AttributeNames.USER_ID, id));
        batch.onStart(parentContext, span);
    }

    @Override
    public boolean isStartRequired() {
        return true;
    }

    @Override
    public void onEnd(ReadableSpan span) {
        // The batch processor exports sampled spans only.
        if (span.getSpanContext().isSampled()) endedSampled.incrementAndGet();
        batch.onEnd(span);
    }

    @Override
    public boolean isEndRequired() {
        return true;
    }

    /** Sampled spans ended so far: each is exported, fails to export, or is dropped by the batch processor. */
    long endedSpans() {
        return endedSampled.get();
    }

    @Override
    public CompletableResultCode forceFlush() {
        return batch.forceFlush();
    }

    @Override
    public CompletableResultCode shutdown() {
        return batch.shutdown();
    }
}
