package dev.svc.sdk;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** A text prompt version. */
public record TextPrompt(String id, String name, int version, String prompt, Map<String, Object> config, List<String> labels,
        List<String> tags, String commitMessage, Instant createdAt, Instant updatedAt, boolean isFallback) implements Prompt {

    public TextPrompt {
        config = config == null ? Map.of() : config;
        labels = labels == null ? List.of() : List.copyOf(labels);
        tags = tags == null ? List.of() : List.copyOf(tags);
    }

    /** The text with each {@code {{name}}} replaced by its variable; variables not given stay as written. */
    public String compile(Map<String, ?> variables) {
        return PromptTemplate.compile(prompt, variables);
    }

    @Override
    public String type() {
        return "text";
    }
}
