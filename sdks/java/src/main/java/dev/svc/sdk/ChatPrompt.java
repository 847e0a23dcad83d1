package dev.svc.sdk;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A chat prompt version: messages and placeholders. */
public record ChatPrompt(String id, String name, int version, List<ChatEntry> prompt, Map<String, Object> config, List<String> labels,
        List<String> tags, String commitMessage, Instant createdAt, Instant updatedAt, boolean isFallback) implements Prompt {

    public ChatPrompt {
        prompt = List.copyOf(prompt);
        config = config == null ? Map.of() : config;
        labels = labels == null ? List.of() : List.copyOf(labels);
        tags = tags == null ? List.of() : List.copyOf(tags);
    }

    /**
     * The messages with each {@code {{name}}} replaced by its variable.
     *
     * @throws IllegalArgumentException when the prompt has a placeholder (use {@link #compile(Map, Map)})
     */
    public List<ChatMessage> compile(Map<String, ?> variables) {
        return compile(variables, Map.of());
    }

    /**
     * The messages with each {@code {{name}}} replaced by its variable and each placeholder by its messages (which
     * are not themselves compiled). Variables not given stay as written.
     *
     * @throws IllegalArgumentException naming a placeholder that has no entry in {@code placeholders}
     */
    public List<ChatMessage> compile(Map<String, ?> variables, Map<String, ? extends List<ChatMessage>> placeholders) {
        List<ChatMessage> out = new ArrayList<>();
        for (ChatEntry entry : prompt) {
            if (entry instanceof ChatMessage m) {
                out.add(new ChatMessage(m.role(), PromptTemplate.compile(m.content(), variables)));
            } else if (entry instanceof ChatPlaceholder p) {
                List<ChatMessage> filling = placeholders.get(p.name());
                if (filling == null) {
                    throw new IllegalArgumentException("chat prompt '" + name + "' has a placeholder '" + p.name()
                            + "': pass its messages in the placeholders map (an empty list leaves it out)");
                }
                out.addAll(filling);
            }
        }
        return out;
    }

    @Override
    public String type() {
        return "chat";
    }
}
