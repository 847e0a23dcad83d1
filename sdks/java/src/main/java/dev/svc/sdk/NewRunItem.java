package dev.svc.sdk;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Links a dataset item to the trace (or observation) that ran it, in a run named by {@code runName}; the run is
 * created when new.
 */
public final class NewRunItem {
    private final Map<String, Object> body;

    private NewRunItem(Map<String, Object> body) {
        this.body = body;
    }

    public static Builder builder(String runName, String datasetItemId) {
        return new Builder(Objects.requireNonNull(runName, "runName"), Objects.requireNonNull(datasetItemId, "datasetItemId"));
    }

    Map<String, Object> body() {
        return body;
    }

    public static final class Builder {
        private final Map<String, Object> body = new LinkedHashMap<>();

        private Builder(String runName, String datasetItemId) {
            body.put("runName", runName);
            body.put("datasetItemId", datasetItemId);
        }

        /** The trace that ran the item (32 hex digits for an OpenTelemetry trace). */
        public Builder traceId(String traceId) {
            body.put("traceId", traceId);
            return this;
        }

        /** The observation (span) that ran the item; without a trace id, its trace is looked up. */
        public Builder observationId(String observationId) {
            body.put("observationId", observationId);
            return this;
        }

        /** The run's description; given again, it updates the run. */
        public Builder runDescription(String description) {
            body.put("runDescription", description);
            return this;
        }

        /** The run's metadata; given again, it updates the run. */
        public Builder metadata(Object metadata) {
            body.put("metadata", metadata);
            return this;
        }

        public NewRunItem build() {
            if (!body.containsKey("traceId") && !body.containsKey("observationId")) {
                throw new IllegalArgumentException("a run item needs traceId(...) or observationId(...)");
            }
            return new NewRunItem(new LinkedHashMap<>(body));
        }
    }
}
