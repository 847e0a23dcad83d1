package dev.svc.sdk;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.ImplicitContextKeyed;
import java.util.Optional;

/**
 * The session and user an agent's work belongs to, carried in the OpenTelemetry {@link Context}. Spans started
 * while it is current get {@code langfuse.session.id} / {@code langfuse.user.id} (through
 * {@link SvcTracing#spanProcessor()}), and gateway calls send them as {@code svc-session-id} / {@code svc-user-id}
 * ({@link SvcGateway#headers()}).
 *
 * <pre>{@code
 * try (Scope scope = SvcContext.current().withSessionId("chat-42").withUserId("ada").makeCurrent()) {
 *     // spans and gateway calls made here carry the session and user
 * }
 * }</pre>
 */
public final class SvcContext implements ImplicitContextKeyed {
    private static final ContextKey<SvcContext> KEY = ContextKey.named("dev.svc.sdk.context");
    private static final SvcContext EMPTY = new SvcContext(null, null);

    private final String sessionId;
    private final String userId;

    private SvcContext(String sessionId, String userId) {
        this.sessionId = sessionId;
        this.userId = userId;
    }

    /** The one of the current {@link Context}; empty when none was made current. */
    public static SvcContext current() {
        return from(Context.current());
    }

    /** The one stored in this context; empty when none. */
    public static SvcContext from(Context context) {
        SvcContext stored = context.get(KEY);
        return stored == null ? EMPTY : stored;
    }

    public SvcContext withSessionId(String sessionId) {
        return new SvcContext(sessionId, userId);
    }

    public SvcContext withUserId(String userId) {
        return new SvcContext(sessionId, userId);
    }

    public Optional<String> sessionId() {
        return Optional.ofNullable(sessionId);
    }

    public Optional<String> userId() {
        return Optional.ofNullable(userId);
    }

    @Override
    public Context storeInContext(Context context) {
        return context.with(KEY, this);
    }
}
