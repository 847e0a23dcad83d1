package dev.svc.sdk;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import java.util.List;
import java.util.Map;

/**
 * Trace-level fields set on a span ({@link SvcSpans#setTrace}): name, user id, session id, tags, metadata, input and
 * output. Any span of the trace may carry them; the latest span to set a field wins.
 */
public final class TraceAttributes {
    private final Builder b;

    private TraceAttributes(Builder b) {
        this.b = b;
    }

    public static Builder builder() {
        return new Builder();
    }

    void applyTo(Span span) {
        if (b.name != null) span.setAttribute(AttributeNames.TRACE_NAME, b.name);
        if (b.userId != null) span.setAttribute(AttributeNames.USER_ID, b.userId);
        if (b.sessionId != null) span.setAttribute(AttributeNames.SESSION_ID, b.sessionId);
        if (b.tags != null) span.setAttribute(AttributeKey.stringArrayKey(AttributeNames.TRACE_TAGS), b.tags);
        if (b.metadata != null) span.setAttribute(AttributeNames.TRACE_METADATA, Json.write(b.metadata));
        if (b.hasInput) span.setAttribute(AttributeNames.TRACE_INPUT, Json.write(b.input));
        if (b.hasOutput) span.setAttribute(AttributeNames.TRACE_OUTPUT, Json.write(b.output));
    }

    public static final class Builder {
        private String name;
        private String userId;
        private String sessionId;
        private List<String> tags;
        private Map<String, ?> metadata;
        private Object input;
        private boolean hasInput;
        private Object output;
        private boolean hasOutput;

        private Builder() {}

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder userId(String userId) {
            this.userId = userId;
            return this;
        }

        public Builder sessionId(String sessionId) {
            this.sessionId = sessionId;
            return this;
        }

        /** Tags; the service reads them back as a list of strings. */
        public Builder tags(String... tags) {
            this.tags = List.of(tags);
            return this;
        }

        /** A JSON object: values may be strings, numbers, booleans, maps or lists. */
        public Builder metadata(Map<String, ?> metadata) {
            this.metadata = metadata;
            return this;
        }

        /** Any value Jackson writes as JSON. */
        public Builder input(Object input) {
            this.input = input;
            this.hasInput = true;
            return this;
        }

        public Builder output(Object output) {
            this.output = output;
            this.hasOutput = true;
            return this;
        }

        public TraceAttributes build() {
            return new TraceAttributes(this);
        }
    }
}
