package dev.svc.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * The client of svc's public API ({@code {baseUrl}/api/public}, Basic auth with the project key pair): prompts,
 * datasets and scores. Thread-safe; make one and share it.
 *
 * <pre>{@code
 * SvcClient svc = SvcClient.fromEnv();   // SVC_PUBLIC_KEY, SVC_SECRET_KEY, SVC_BASE_URL
 * svc.authCheck();
 * String text = svc.prompts().getText("welcome").compile(Map.of("name", "Ada"));
 * }</pre>
 */
public final class SvcClient {
    private final ApiTransport transport;
    private final Prompts prompts;
    private final Datasets datasets;
    private final Scores scores;

    private SvcClient(Builder b) {
        this.transport = new ApiTransport(Settings.baseUrl(b.baseUrl, b.env), Settings.publicKey(b.publicKey, b.env),
                Settings.secretKey(b.secretKey, b.env), Settings.timeout(b.timeout, b.env), b.maxRetries, b.maxRetryWait);
        this.prompts = new Prompts(transport, b.promptCacheTtl);
        this.datasets = new Datasets(transport);
        this.scores = new Scores(transport);
    }

    /**
     * A client configured from {@code SVC_PUBLIC_KEY}, {@code SVC_SECRET_KEY} and {@code SVC_BASE_URL}.
     *
     * @throws SvcConfigException naming the variable that is missing or malformed
     */
    public static SvcClient fromEnv() {
        return builder().build();
    }

    /** A builder whose settings default to the environment variables; what it is given overrides them. */
    public static Builder builder() {
        return new Builder(System.getenv());
    }

    /**
     * Checks the key pair and base URL with GET /api/public/projects and answers the key's project.
     *
     * @throws SvcApiException status 401 for a wrong key pair (the server's message says why)
     * @throws SvcConnectionException when the base URL does not answer
     */
    public Project authCheck() {
        JsonNode data = transport.get("/api/public/projects").path("data");
        if (!data.isArray() || data.isEmpty()) {
            throw new SvcException("GET /api/public/projects at " + transport.baseUrl() + " answered no project: is SVC_BASE_URL the svc admin listener?");
        }
        return Json.read(data.get(0), Project.class);
    }

    public Prompts prompts() {
        return prompts;
    }

    public Datasets datasets() {
        return datasets;
    }

    public Scores scores() {
        return scores;
    }

    /** The admin listener's base URL this client calls. */
    public URI baseUrl() {
        return transport.baseUrl();
    }

    public static final class Builder {
        private final Map<String, String> env;
        private String publicKey;
        private String secretKey;
        private String baseUrl;
        private Duration timeout;
        private int maxRetries = 2;
        private Duration maxRetryWait = Duration.ofSeconds(30);
        private Duration promptCacheTtl = Duration.ofSeconds(60);

        Builder(Map<String, String> env) {
            this.env = env;
        }

        /** Overrides {@code SVC_PUBLIC_KEY} ({@code pk-...}). */
        public Builder publicKey(String publicKey) {
            this.publicKey = publicKey;
            return this;
        }

        /** Overrides {@code SVC_SECRET_KEY} ({@code sk-...}). */
        public Builder secretKey(String secretKey) {
            this.secretKey = secretKey;
            return this;
        }

        /** Overrides {@code SVC_BASE_URL}: the admin listener, e.g. {@code http://localhost:8081}. */
        public Builder baseUrl(String baseUrl) {
            this.baseUrl = baseUrl;
            return this;
        }

        /**
         * Overrides {@code SVC_TIMEOUT} (seconds; default 5 s): the connect timeout and the time allowed for each answer.
         * A request that times out is not retried.
         */
        public Builder timeout(Duration timeout) {
            if (timeout == null || timeout.isZero() || timeout.isNegative()) throw new IllegalArgumentException("timeout must be positive");
            this.timeout = timeout;
            return this;
        }

        /** Retries after a 429, a 5xx or a connection failure (default 2; 0 turns retrying off). */
        public Builder maxRetries(int maxRetries) {
            if (maxRetries < 0) throw new IllegalArgumentException("maxRetries must be 0 or more");
            this.maxRetries = maxRetries;
            return this;
        }

        /** The longest {@code retry-after} the client waits for; a longer one fails at once (default 30 s). */
        public Builder maxRetryWait(Duration maxRetryWait) {
            if (maxRetryWait == null || maxRetryWait.isNegative()) throw new IllegalArgumentException("maxRetryWait must be zero or positive");
            this.maxRetryWait = maxRetryWait;
            return this;
        }

        /** How long a fetched prompt is served from the cache (default 60 s); see {@link Prompts}. */
        public Builder promptCacheTtl(Duration ttl) {
            if (ttl == null || ttl.isNegative()) throw new IllegalArgumentException("promptCacheTtl must be zero or positive");
            this.promptCacheTtl = ttl;
            return this;
        }

        /**
         * @throws SvcConfigException naming the setting (environment variable and builder method) that is missing or
         *     malformed
         */
        public SvcClient build() {
            return new SvcClient(this);
        }
    }
}
