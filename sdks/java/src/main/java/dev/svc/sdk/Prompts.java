package dev.svc.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Prompts under {@code /api/public/v2/prompts}: get a version by label or number through a client-side cache,
 * create versions, add labels. Reached through {@link SvcClient#prompts()}.
 *
 * <p>The cache serves a fetched version for its TTL. After that the version is fetched again; when the service cannot
 * be reached (connection failure, timeout, 5xx or 429 after the retries) the last good version is served and a
 * warning logged. When nothing is cached and the fetch fails, the request's fallback is answered, if it has one.
 */
public final class Prompts {
    private static final System.Logger LOG = System.getLogger("dev.svc.sdk");

    private record Cached(Prompt prompt, long fetchedAtNanos) {}

    private final ApiTransport transport;
    private final Duration defaultTtl;
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();

    Prompts(ApiTransport transport, Duration defaultTtl) {
        this.transport = transport;
        this.defaultTtl = defaultTtl;
    }

    /** The version labelled {@code production}. */
    public Prompt get(String name) {
        return get(name, PromptRequest.production());
    }

    /** The version the request selects, from the cache while fresh. */
    public Prompt get(String name, PromptRequest request) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(request, "request");
        String key = name + "\u0000" + request.selector();
        Duration ttl = request.cacheTtl() != null ? request.cacheTtl() : defaultTtl;
        Cached cached = cache.get(key);
        if (cached != null && System.nanoTime() - cached.fetchedAtNanos() < ttl.toNanos()) return cached.prompt();
        try {
            Prompt fetched = fetch(name, request);
            cache.put(key, new Cached(fetched, System.nanoTime()));
            return fetched;
        } catch (SvcException e) {
            if (cached != null && unavailable(e)) {
                LOG.log(System.Logger.Level.WARNING, "svc: serving the cached prompt ''{0}'' ({1}, version {2}): {3}", name, request,
                        cached.prompt().version(), e.getMessage());
                return cached.prompt();
            }
            Prompt fallback = request.fallback(name);
            if (fallback == null) throw e;
            LOG.log(System.Logger.Level.WARNING, "svc: answering the fallback for prompt ''{0}'' ({1}): {2}", name, request, e.getMessage());
            return fallback;
        }
    }

    /** The {@code production} version, which must be a text prompt. */
    public TextPrompt getText(String name) {
        return getText(name, PromptRequest.production());
    }

    public TextPrompt getText(String name, PromptRequest request) {
        return as(TextPrompt.class, get(name, request));
    }

    /** The {@code production} version, which must be a chat prompt. */
    public ChatPrompt getChat(String name) {
        return getChat(name, PromptRequest.production());
    }

    public ChatPrompt getChat(String name, PromptRequest request) {
        return as(ChatPrompt.class, get(name, request));
    }

    /** Creates the next version of a text prompt (version 1 for a new name). */
    public TextPrompt createText(String name, String prompt) {
        return createText(name, prompt, PromptOptions.none());
    }

    public TextPrompt createText(String name, String prompt, PromptOptions options) {
        Objects.requireNonNull(prompt, "prompt");
        return as(TextPrompt.class, create(name, "text", prompt, options));
    }

    /** Creates the next version of a chat prompt (version 1 for a new name). */
    public ChatPrompt createChat(String name, List<? extends ChatEntry> messages) {
        return createChat(name, messages, PromptOptions.none());
    }

    public ChatPrompt createChat(String name, List<? extends ChatEntry> messages, PromptOptions options) {
        List<Map<String, Object>> entries = new ArrayList<>();
        for (ChatEntry entry : messages) {
            if (entry instanceof ChatMessage m) entries.add(Map.of("role", m.role(), "content", m.content()));
            else if (entry instanceof ChatPlaceholder p) entries.add(Map.of("type", "placeholder", "name", p.name()));
        }
        return as(ChatPrompt.class, create(name, "chat", entries, options));
    }

    /**
     * Adds labels to a version; each label leaves the version that had it ({@code latest} is the service's and
     * cannot be given). The cached versions of this name are dropped.
     */
    public Prompt updateLabels(String name, int version, List<String> newLabels) {
        Objects.requireNonNull(name, "name");
        JsonNode node = transport.send("PATCH", "/api/public/v2/prompts/" + ApiTransport.segment(name) + "/versions/" + version,
                Map.of("newLabels", List.copyOf(newLabels)), true);
        forget(name);
        return promptOf(node);
    }

    private Prompt create(String name, String type, Object prompt, PromptOptions options) {
        Objects.requireNonNull(name, "name");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", name);
        body.put("type", type);
        body.put("prompt", prompt);
        body.putAll(options.fields());
        Prompt created = promptOf(transport.send("POST", "/api/public/v2/prompts", body, false));
        forget(name);
        return created;
    }

    private void forget(String name) {
        cache.keySet().removeIf(k -> k.startsWith(name + "\u0000"));
    }

    private Prompt fetch(String name, PromptRequest request) {
        Map<String, Object> query = new LinkedHashMap<>();
        query.put("version", request.version());
        query.put("label", request.label());
        return promptOf(transport.get("/api/public/v2/prompts/" + ApiTransport.segment(name) + ApiTransport.query(query)));
    }

    /** A connection failure, timeout, 5xx or 429: the service is not answering, as opposed to saying no. */
    private static boolean unavailable(SvcException e) {
        return e instanceof SvcConnectionException || (e instanceof SvcApiException api && (api.status() >= 500 || api.status() == 429));
    }

    private static <T extends Prompt> T as(Class<T> type, Prompt prompt) {
        if (!type.isInstance(prompt)) {
            throw new SvcException("prompt '" + prompt.name() + "' version " + prompt.version() + " is a " + prompt.type() + " prompt, not "
                    + (type == TextPrompt.class ? "text" : "chat"));
        }
        return type.cast(prompt);
    }

    @SuppressWarnings("unchecked")
    static Prompt promptOf(JsonNode node) {
        String id = node.path("id").asText(null);
        String name = node.path("name").asText();
        int version = node.path("version").asInt();
        Map<String, Object> config = node.hasNonNull("config") ? (Map<String, Object>) Json.plain(node.get("config")) : Map.of();
        List<String> labels = strings(node.get("labels"));
        List<String> tags = strings(node.get("tags"));
        String commitMessage = node.path("commitMessage").asText(null);
        Instant createdAt = instant(node.get("createdAt"));
        Instant updatedAt = instant(node.get("updatedAt"));
        if ("chat".equals(node.path("type").asText())) {
            List<ChatEntry> entries = new ArrayList<>();
            for (JsonNode e : node.path("prompt")) {
                if ("placeholder".equals(e.path("type").asText())) entries.add(new ChatPlaceholder(e.path("name").asText()));
                else entries.add(new ChatMessage(e.path("role").asText(), e.path("content").asText()));
            }
            return new ChatPrompt(id, name, version, entries, config, labels, tags, commitMessage, createdAt, updatedAt, false);
        }
        return new TextPrompt(id, name, version, node.path("prompt").asText(), config, labels, tags, commitMessage, createdAt, updatedAt, false);
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        if (array != null) array.forEach(v -> out.add(v.asText()));
        return out;
    }

    private static Instant instant(JsonNode text) {
        return text == null || text.isNull() ? null : Instant.parse(text.asText());
    }
}
