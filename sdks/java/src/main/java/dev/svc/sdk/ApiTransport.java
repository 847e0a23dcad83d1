package dev.svc.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.concurrent.ThreadLocalRandom;

/**
 * JSON over java.net.http to {@code {baseUrl}/api/public} with Basic auth, retrying 429, 5xx and connection failures
 * with exponential backoff and the server's {@code retry-after}. Requests that are not safe to repeat (they would add
 * a second prompt version or run item) are retried only when the server cannot have acted: on 429 and when the
 * connection was never made.
 */
final class ApiTransport {
    private static final Duration BACKOFF_BASE = Duration.ofMillis(500);
    private static final Duration BACKOFF_MAX = Duration.ofSeconds(8);
    private static final String USER_AGENT = "svc-sdk-java/" + SdkVersion.VERSION;

    private final URI baseUrl;
    private final String authorization;
    private final Duration timeout;
    private final int maxRetries;
    private final Duration maxRetryWait;
    private final HttpClient http;

    ApiTransport(URI baseUrl, String publicKey, String secretKey, Duration timeout, int maxRetries, Duration maxRetryWait) {
        this.baseUrl = baseUrl;
        this.authorization = "Basic " + Base64.getEncoder().encodeToString((publicKey + ":" + secretKey).getBytes(StandardCharsets.UTF_8));
        this.timeout = timeout;
        this.maxRetries = maxRetries;
        this.maxRetryWait = maxRetryWait;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
    }

    URI baseUrl() {
        return baseUrl;
    }

    /** One path segment, slashes included, encoded as the service expects ({@code a/b} as {@code a%2Fb}). */
    static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static String query(Map<String, ?> params) {
        StringJoiner joiner = new StringJoiner("&", "?", "");
        joiner.setEmptyValue("");
        params.forEach((k, v) -> {
            if (v != null) joiner.add(segment(k) + "=" + segment(String.valueOf(v)));
        });
        return joiner.toString();
    }

    JsonNode get(String path) {
        return send("GET", path, null, true);
    }

    /**
     * Sends the request and answers the parsed body (a null node for an empty one).
     *
     * @param repeatable whether the server may see this request twice without harm (reads, upserts by id, labels)
     */
    JsonNode send(String method, String path, Object body, boolean repeatable) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(timeout)
                .header("Authorization", authorization)
                .header("Accept", "application/json")
                .header("User-Agent", USER_AGENT);
        if (body == null) {
            builder.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            builder.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(Json.write(body)));
        }
        HttpRequest request = builder.build();
        String where = method + " " + path.replaceAll("\\?.*", "");
        for (int attempt = 0; ; attempt++) {
            HttpResponse<String> response;
            try {
                response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                boolean notSent = e instanceof ConnectException || e instanceof HttpConnectTimeoutException;
                // A server silent for the whole timeout is stuck: retrying would multiply the caller's wait.
                boolean silent = e instanceof HttpTimeoutException && !notSent;
                if (attempt >= maxRetries || silent || !(repeatable || notSent)) {
                    throw new SvcConnectionException("svc at " + baseUrl + " did not answer " + where + " after " + (attempt + 1)
                            + " attempt(s): " + describe(e), e);
                }
                pause(backoff(attempt));
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SvcConnectionException("interrupted while calling svc: " + where, e);
            }
            int status = response.statusCode();
            if (status < 300) return parse(response.body());
            boolean retryable = status == 429 || (status >= 500 && repeatable);
            if (retryable && attempt < maxRetries) {
                Duration wait = retryAfter(response).orElse(backoff(attempt));
                if (wait.compareTo(maxRetryWait) <= 0) {
                    pause(wait);
                    continue;
                }
            }
            throw apiError(method, path.replaceAll("\\?.*", ""), status, response.body());
        }
    }

    private static String describe(IOException e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : " " + message);
    }

    private static JsonNode parse(String text) {
        if (text == null || text.isBlank()) return Json.MAPPER.nullNode();
        try {
            return Json.MAPPER.readTree(text);
        } catch (IOException e) {
            throw new SvcException("svc answered a body that is not JSON: " + abbreviate(text), e);
        }
    }

    static SvcApiException apiError(String method, String path, int status, String body) {
        String message = abbreviate(body == null ? "" : body);
        String error = null;
        try {
            JsonNode node = Json.MAPPER.readTree(body == null ? "" : body);
            if (node != null && node.isObject()) {
                JsonNode m = node.get("message");
                JsonNode e = node.get("error");
                if (m != null && m.isTextual()) message = m.asText();
                if (e != null && !e.isNull()) error = e.isTextual() ? e.asText() : e.toString();
                if ((m == null || !m.isTextual()) && error != null) message = error;
            }
        } catch (IOException notJson) {
            // the body text is the message
        }
        return new SvcApiException(method, path, status, message, error);
    }

    private static String abbreviate(String text) {
        return text.length() > 500 ? text.substring(0, 500) + "…" : text;
    }

    /** {@code retry-after} in seconds or as an HTTP date. */
    private static Optional<Duration> retryAfter(HttpResponse<?> response) {
        return response.headers().firstValue("retry-after").map(String::trim).flatMap(value -> {
            try {
                double seconds = Double.parseDouble(value);
                return seconds >= 0 ? Optional.of(Duration.ofMillis((long) (seconds * 1000))) : Optional.empty();
            } catch (NumberFormatException notSeconds) {
                try {
                    Duration until = Duration.between(ZonedDateTime.now(), ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME));
                    return Optional.of(until.isNegative() ? Duration.ZERO : until);
                } catch (DateTimeParseException notDate) {
                    return Optional.empty();
                }
            }
        });
    }

    /** Exponential backoff with jitter: half to all of base × 2^attempt, at most {@link #BACKOFF_MAX}. */
    private static Duration backoff(int attempt) {
        long ceiling = Math.min(BACKOFF_MAX.toMillis(), BACKOFF_BASE.toMillis() << Math.min(attempt, 10));
        return Duration.ofMillis(ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1));
    }

    private static void pause(Duration wait) {
        try {
            Thread.sleep(wait.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SvcConnectionException("interrupted while waiting to retry a call to svc", e);
        }
    }
}
