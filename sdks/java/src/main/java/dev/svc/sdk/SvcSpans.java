package dev.svc.sdk;

import io.opentelemetry.api.trace.Span;

/** Sets svc's trace and generation fields on OpenTelemetry spans, under the attribute names the service reads. */
public final class SvcSpans {
    private SvcSpans() {}

    /** Sets trace-level fields (name, user, session, tags, metadata, input, output) on this span. */
    public static void setTrace(Span span, TraceAttributes trace) {
        trace.applyTo(span);
    }

    /** Sets trace-level fields on the current span ({@link Span#current()}); nothing happens without one. */
    public static void updateCurrentTrace(TraceAttributes trace) {
        trace.applyTo(Span.current());
    }

    /** Makes this span a generation and sets its model, parameters, usage, cost, times, input, output and prompt. */
    public static void setGeneration(Span span, GenerationAttributes generation) {
        generation.applyTo(span);
    }
}
