package dev.svc.sdk;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/** A dataset item to create, or to update when its id exists in the same dataset. */
public final class NewDatasetItem {
    private final Map<String, Object> body;

    private NewDatasetItem(Map<String, Object> body) {
        this.body = body;
    }

    /** An item of the named dataset, with a new random id unless {@link Builder#id} is given. */
    public static Builder builder(String datasetName) {
        return new Builder(Objects.requireNonNull(datasetName, "datasetName"));
    }

    Map<String, Object> body() {
        return body;
    }

    public static final class Builder {
        private final Map<String, Object> body = new LinkedHashMap<>();

        private Builder(String datasetName) {
            body.put("datasetName", datasetName);
        }

        /** The item's id (1..255 characters); an existing id of the same dataset updates that item. */
        public Builder id(String id) {
            body.put("id", id);
            return this;
        }

        /** Any JSON value: a String, Number, Boolean, Map or List. */
        public Builder input(Object input) {
            body.put("input", input);
            return this;
        }

        public Builder expectedOutput(Object expectedOutput) {
            body.put("expectedOutput", expectedOutput);
            return this;
        }

        public Builder metadata(Object metadata) {
            body.put("metadata", metadata);
            return this;
        }

        public Builder sourceTraceId(String traceId) {
            body.put("sourceTraceId", traceId);
            return this;
        }

        public Builder sourceObservationId(String observationId) {
            body.put("sourceObservationId", observationId);
            return this;
        }

        /** {@code true} archives the item: it leaves the lists but can still be read by id. */
        public Builder archived(boolean archived) {
            body.put("status", archived ? "ARCHIVED" : "ACTIVE");
            return this;
        }

        public NewDatasetItem build() {
            Map<String, Object> out = new LinkedHashMap<>(body);
            // An id chosen here makes a retried request update the same item instead of adding a second one.
            out.putIfAbsent("id", UUID.randomUUID().toString());
            return new NewDatasetItem(out);
        }
    }
}
