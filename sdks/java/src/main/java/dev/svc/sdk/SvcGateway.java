package dev.svc.sdk;

import com.openai.client.OpenAIClient;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.ReadableSpan;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The gateway link: calls through svc's gateway carry the current span's {@code traceparent} and the current
 * session and user ids ({@code svc-session-id}, {@code svc-user-id}), so the gateway's trace of each LLM call is
 * stored as a child of the agent span that made it.
 *
 * <p>{@link #headers()} works with any HTTP client. {@link #openAiClient()} gives an openai-java client pointed at
 * the gateway that adds them to every request; it needs {@code com.openai:openai-java} on the classpath.
 */
public final class SvcGateway {
    static final String TRACEPARENT = "traceparent";
    static final String SESSION_HEADER = "svc-session-id";
    static final String USER_HEADER = "svc-user-id";

    private SvcGateway() {}

    /**
     * The link headers for the current {@link Context}: {@code traceparent} when a span is current, and
     * {@code svc-session-id} / {@code svc-user-id} from the current {@link SvcContext}, else from the current span's
     * {@code langfuse.session.id} / {@code langfuse.user.id} attributes. Empty when there is nothing to link.
     */
    public static Map<String, String> headers() {
        Map<String, String> headers = new LinkedHashMap<>();
        Context context = Context.current();
        W3CTraceContextPropagator.getInstance().inject(context, headers, (carrier, key, value) -> {
            if (key.equals(TRACEPARENT)) carrier.put(key, value);
        });
        SvcContext svc = SvcContext.from(context);
        Span span = Span.fromContext(context);
        svc.sessionId().or(() -> spanAttribute(span, AttributeNames.SESSION_ID)).ifPresent(id -> headers.put(SESSION_HEADER, id));
        svc.userId().or(() -> spanAttribute(span, AttributeNames.USER_ID)).ifPresent(id -> headers.put(USER_HEADER, id));
        return headers;
    }

    /**
     * An openai-java client for the gateway at {@code SVC_GATEWAY_URL} (without {@code /v1}; a trailing {@code /v1}
     * is accepted) with the key {@code SVC_GATEWAY_KEY}, sending the link headers of the calling thread's context
     * with each request.
     *
     * @throws SvcConfigException naming the variable that is missing or malformed
     */
    public static OpenAIClient openAiClient() {
        return openAiClient(null, null);
    }

    /**
     * As {@link #openAiClient()}, with the gateway URL and key given (a null one is read from its environment
     * variable).
     */
    public static OpenAIClient openAiClient(String gatewayUrl, String gatewayKey) {
        Map<String, String> env = System.getenv();
        return OpenAiGatewayClient.create(Settings.gatewayUrl(gatewayUrl, env) + "/v1", Settings.gatewayKey(gatewayKey, env));
    }

    private static Optional<String> spanAttribute(Span span, String key) {
        return span instanceof ReadableSpan readable ? Optional.ofNullable(readable.getAttribute(AttributeKey.stringKey(key))) : Optional.empty();
    }
}
