package dev.svc.sdk;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Optional fields of a new prompt version: labels, tags, config and a commit message. */
public final class PromptOptions {
    private final List<String> labels;
    private final List<String> tags;
    private final Map<String, Object> config;
    private final String commitMessage;

    private PromptOptions(Builder b) {
        this.labels = b.labels;
        this.tags = b.tags;
        this.config = b.config;
        this.commitMessage = b.commitMessage;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** No labels, tags or config: the version gets only {@code latest}. */
    public static PromptOptions none() {
        return builder().build();
    }

    /** The body fields these options add to POST /api/public/v2/prompts. */
    Map<String, Object> fields() {
        Map<String, Object> out = new LinkedHashMap<>();
        if (labels != null) out.put("labels", labels);
        if (tags != null) out.put("tags", tags);
        if (config != null) out.put("config", config);
        if (commitMessage != null) out.put("commitMessage", commitMessage);
        return out;
    }

    public static final class Builder {
        private List<String> labels;
        private List<String> tags;
        private Map<String, Object> config;
        private String commitMessage;

        private Builder() {}

        /** Labels of the new version, e.g. {@code production}; they move away from other versions. */
        public Builder labels(String... labels) {
            this.labels = List.of(labels);
            return this;
        }

        /** Tags; they become the tags of every version of the name. */
        public Builder tags(String... tags) {
            this.tags = List.of(tags);
            return this;
        }

        /** Free-form config (model, temperature, ...), answered with the prompt. */
        public Builder config(Map<String, ?> config) {
            this.config = Map.copyOf(config);
            return this;
        }

        public Builder commitMessage(String commitMessage) {
            this.commitMessage = commitMessage;
            return this;
        }

        public PromptOptions build() {
            return new PromptOptions(this);
        }
    }
}
