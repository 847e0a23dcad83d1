package dev.svc.sdk;

/** One entry of a chat prompt: a {@link ChatMessage} or a {@link ChatPlaceholder} filled in at compile time. */
public sealed interface ChatEntry permits ChatMessage, ChatPlaceholder {}
