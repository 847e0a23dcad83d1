package dev.svc.sdk;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** A prompt version: {@link TextPrompt} or {@link ChatPrompt}. */
public sealed interface Prompt permits TextPrompt, ChatPrompt {
    /** Null for a fallback prompt. */
    String id();

    String name();

    /** The version number; 0 for a fallback prompt. */
    int version();

    Map<String, Object> config();

    List<String> labels();

    List<String> tags();

    String commitMessage();

    Instant createdAt();

    Instant updatedAt();

    /** True when the prompt is the caller's fallback, not a version from the service. */
    boolean isFallback();

    /** {@code text} or {@code chat}. */
    String type();
}
