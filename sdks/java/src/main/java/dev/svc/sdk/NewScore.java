package dev.svc.sdk;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * A score to record: numeric, categorical or boolean, on a trace, an observation of a trace, or a session.
 *
 * <pre>{@code
 * NewScore.numeric("accuracy", 0.92).traceId(traceId).build();
 * NewScore.categorical("tone", "friendly").traceId(traceId).observationId(spanId).configId(configId).build();
 * NewScore.bool("resolved", true).sessionId("session-42").comment("closed by the user").build();
 * }</pre>
 */
public final class NewScore {
    private final Map<String, Object> body;

    private NewScore(Map<String, Object> body) {
        this.body = body;
    }

    public static Builder numeric(String name, double value) {
        return new Builder(name, value, ScoreDataType.NUMERIC);
    }

    /** A category label; with a config, one of the config's category labels. */
    public static Builder categorical(String name, String value) {
        return new Builder(name, Objects.requireNonNull(value, "value"), ScoreDataType.CATEGORICAL);
    }

    /** Sent as 1 or 0, read back with {@code stringValue} {@code True} or {@code False}. */
    public static Builder bool(String name, boolean value) {
        return new Builder(name, value ? 1 : 0, ScoreDataType.BOOLEAN);
    }

    Map<String, Object> body() {
        return body;
    }

    String id() {
        return (String) body.get("id");
    }

    public static final class Builder {
        private final Map<String, Object> body = new LinkedHashMap<>();

        private Builder(String name, Object value, ScoreDataType type) {
            body.put("name", Objects.requireNonNull(name, "name"));
            body.put("value", value);
            body.put("dataType", type.name());
        }

        /** The score's id; an existing id updates that score. A new random id when not given. */
        public Builder id(String id) {
            body.put("id", id);
            return this;
        }

        public Builder traceId(String traceId) {
            body.put("traceId", traceId);
            return this;
        }

        /** An observation (span id) of the trace given with {@link #traceId}. */
        public Builder observationId(String observationId) {
            body.put("observationId", observationId);
            return this;
        }

        public Builder sessionId(String sessionId) {
            body.put("sessionId", sessionId);
            return this;
        }

        /** A score config: the value must fit it, and the score takes its name and data type. */
        public Builder configId(String configId) {
            body.put("configId", configId);
            return this;
        }

        public Builder comment(String comment) {
            body.put("comment", comment);
            return this;
        }

        public Builder metadata(Object metadata) {
            body.put("metadata", metadata);
            return this;
        }

        public Builder environment(String environment) {
            body.put("environment", environment);
            return this;
        }

        /** @throws IllegalArgumentException unless exactly one target is set: a trace (optionally an observation of it) or a session */
        public NewScore build() {
            boolean trace = body.containsKey("traceId");
            boolean session = body.containsKey("sessionId");
            if (trace == session) {
                throw new IllegalArgumentException("a score needs exactly one target: traceId(...) (optionally with observationId(...)) or sessionId(...)");
            }
            if (body.containsKey("observationId") && !trace) {
                throw new IllegalArgumentException("observationId(...) needs the observation's traceId(...)");
            }
            Map<String, Object> out = new LinkedHashMap<>(body);
            // An id chosen here makes a retried request update the same score instead of adding a second one.
            out.putIfAbsent("id", UUID.randomUUID().toString());
            return new NewScore(out);
        }
    }
}
