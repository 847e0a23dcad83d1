package dev.svc.sdk;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Pattern;

/** Reads and checks the settings shared by the client, the tracing setup and the gateway link. */
final class Settings {
    static final String PUBLIC_KEY = "SVC_PUBLIC_KEY";
    static final String SECRET_KEY = "SVC_SECRET_KEY";
    static final String BASE_URL = "SVC_BASE_URL";
    static final String GATEWAY_URL = "SVC_GATEWAY_URL";
    static final String GATEWAY_KEY = "SVC_GATEWAY_KEY";
    static final String TIMEOUT = "SVC_TIMEOUT";
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    private static final Pattern NO_SPACE = Pattern.compile("\\S+");

    private Settings() {}

    /** The builder's value when given, else the environment's; a blank value counts as missing. */
    static String pick(String given, Map<String, String> env, String variable, String builderMethod) {
        String value = given != null ? given : env.get(variable);
        if (value == null || value.isBlank()) {
            throw new SvcConfigException(variable + " is not set: set the environment variable " + variable
                    + " or call " + builderMethod + "(...) on the builder");
        }
        return value.trim();
    }

    static String publicKey(String given, Map<String, String> env) {
        String key = pick(given, env, PUBLIC_KEY, "publicKey");
        if (!key.startsWith("pk-") || !NO_SPACE.matcher(key).matches() || key.contains(":")) {
            throw new SvcConfigException(PUBLIC_KEY + " is malformed: a public key starts with 'pk-' and has no spaces or ':'"
                    + (key.startsWith("sk-") ? " (this looks like the secret key)" : ""));
        }
        return key;
    }

    static String secretKey(String given, Map<String, String> env) {
        String key = pick(given, env, SECRET_KEY, "secretKey");
        if (!key.startsWith("sk-") || !NO_SPACE.matcher(key).matches()) {
            throw new SvcConfigException(SECRET_KEY + " is malformed: a secret key starts with 'sk-' and has no spaces"
                    + (key.startsWith("pk-") ? " (this looks like the public key)" : ""));
        }
        return key;
    }

    static URI baseUrl(String given, Map<String, String> env) {
        String text = pick(given, env, BASE_URL, "baseUrl");
        URI uri = httpUrl(text, BASE_URL, "the admin listener's address, e.g. http://localhost:8081");
        if (uri.getPath().endsWith("/v1")) {
            throw new SvcConfigException(BASE_URL + " is malformed: give the admin listener's address without /v1 (the gateway's "
                    + "address goes in " + GATEWAY_URL + "), e.g. http://localhost:8081");
        }
        if (uri.getPath().endsWith("/api/public")) {
            throw new SvcConfigException(BASE_URL + " is malformed: give the admin listener's address without /api/public, e.g. "
                    + uri.resolve("/").toString().replaceAll("/$", ""));
        }
        return uri;
    }

    /** The gateway's base URL without {@code /v1}; a trailing {@code /v1} is accepted and dropped. */
    static URI gatewayUrl(String given, Map<String, String> env) {
        String text = pick(given, env, GATEWAY_URL, "gatewayUrl");
        URI uri = httpUrl(text, GATEWAY_URL, "the gateway's address, e.g. http://localhost:8080");
        String url = uri.toString();
        return url.endsWith("/v1") ? URI.create(url.substring(0, url.length() - 3)) : uri;
    }

    static String gatewayKey(String given, Map<String, String> env) {
        String key = pick(given, env, GATEWAY_KEY, "gatewayKey");
        if (!NO_SPACE.matcher(key).matches()) {
            throw new SvcConfigException(GATEWAY_KEY + " is malformed: a gateway key has no spaces");
        }
        return key;
    }

    /** The REST timeout: the builder's, else {@code SVC_TIMEOUT} (seconds, fractions allowed), else 5 s. */
    static Duration timeout(Duration given, Map<String, String> env) {
        if (given != null) return given;
        String text = env.get(TIMEOUT);
        if (text == null || text.isBlank()) return DEFAULT_TIMEOUT;
        double seconds;
        try {
            seconds = Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            seconds = 0;
        }
        if (!(seconds > 0) || Double.isInfinite(seconds)) {
            throw new SvcConfigException(TIMEOUT + " is malformed: '" + text + "' is not a positive number of seconds");
        }
        return Duration.ofNanos(Math.round(seconds * 1e9));
    }

    /** An absolute http(s) URL without query or fragment, its trailing slash removed. */
    private static URI httpUrl(String text, String variable, String example) {
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new SvcConfigException(variable + " is malformed: '" + text + "' is not a URL; expected " + example);
        }
        String scheme = uri.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https")) || uri.getHost() == null
                || uri.getRawQuery() != null || uri.getRawFragment() != null || uri.getRawUserInfo() != null) {
            throw new SvcConfigException(variable + " is malformed: '" + text + "' is not an http(s) URL with a host; expected " + example);
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath().replaceAll("/+$", "");
        return URI.create(scheme.toLowerCase() + "://" + uri.getRawAuthority() + path);
    }
}
