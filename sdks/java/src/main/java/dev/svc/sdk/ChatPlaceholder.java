package dev.svc.sdk;

import java.util.Map;
import java.util.Objects;

/** A named slot in a chat prompt that {@link ChatPrompt#compile(Map, Map)} replaces with a list of messages. */
public record ChatPlaceholder(String name) implements ChatEntry {
    public ChatPlaceholder {
        Objects.requireNonNull(name, "name");
    }
}
