package dev.svc.sdk;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Which prompt version to get (a label, by default {@code production}, or a version number), how long a fetched
 * version is served from the cache, and what to answer when it cannot be fetched and nothing is cached.
 */
public final class PromptRequest {
    private final Integer version;
    private final String label;
    private final Duration cacheTtl;
    private final String fallbackText;
    private final List<ChatEntry> fallbackChat;

    private PromptRequest(Integer version, String label, Duration cacheTtl, String fallbackText, List<ChatEntry> fallbackChat) {
        this.version = version;
        this.label = label;
        this.cacheTtl = cacheTtl;
        this.fallbackText = fallbackText;
        this.fallbackChat = fallbackChat;
    }

    /** The version labelled {@code production}. */
    public static PromptRequest production() {
        return label("production");
    }

    /** The version that carries this label. */
    public static PromptRequest label(String label) {
        Objects.requireNonNull(label, "label");
        return new PromptRequest(null, label, null, null, null);
    }

    /** This version number (from 1). */
    public static PromptRequest version(int version) {
        if (version < 1) throw new IllegalArgumentException("a prompt version is at least 1, got " + version);
        return new PromptRequest(version, null, null, null, null);
    }

    /**
     * How long a fetched version is served without asking the service again (default: the client's
     * {@code promptCacheTtl}, 60 s). {@link Duration#ZERO} asks every time; the last good version is still kept for
     * when the service cannot be reached.
     */
    public PromptRequest withCacheTtl(Duration ttl) {
        if (ttl == null || ttl.isNegative()) throw new IllegalArgumentException("cacheTtl must be zero or positive");
        return new PromptRequest(version, label, ttl, fallbackText, fallbackChat);
    }

    /** A text prompt answered (with {@code isFallback() == true}) when the version cannot be fetched and none is cached. */
    public PromptRequest withFallback(String text) {
        Objects.requireNonNull(text, "fallback text");
        return new PromptRequest(version, label, cacheTtl, text, null);
    }

    /** A chat prompt answered (with {@code isFallback() == true}) when the version cannot be fetched and none is cached. */
    public PromptRequest withFallback(List<? extends ChatEntry> messages) {
        Objects.requireNonNull(messages, "fallback messages");
        return new PromptRequest(version, label, cacheTtl, null, List.copyOf(messages));
    }

    Integer version() {
        return version;
    }

    String label() {
        return label;
    }

    Duration cacheTtl() {
        return cacheTtl;
    }

    /** The fallback prompt for this name, or null when none was given. */
    Prompt fallback(String name) {
        if (fallbackText != null) return new TextPrompt(null, name, 0, fallbackText, null, null, null, null, null, null, true);
        if (fallbackChat != null) return new ChatPrompt(null, name, 0, fallbackChat, null, null, null, null, null, null, true);
        return null;
    }

    /** The cache key part: {@code v:3} or {@code l:production}. */
    String selector() {
        return version != null ? "v:" + version : "l:" + label;
    }

    @Override
    public String toString() {
        return version != null ? "version " + version : "label '" + label + "'";
    }
}
