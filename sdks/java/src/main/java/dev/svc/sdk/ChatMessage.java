package dev.svc.sdk;

import java.util.Objects;

/** A chat message: a role ({@code system}, {@code user}, {@code assistant}, ...) and its text. */
public record ChatMessage(String role, String content) implements ChatEntry {
    public ChatMessage {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
    }

    public static ChatMessage system(String content) {
        return new ChatMessage("system", content);
    }

    public static ChatMessage user(String content) {
        return new ChatMessage("user", content);
    }

    public static ChatMessage assistant(String content) {
        return new ChatMessage("assistant", content);
    }
}
