package dev.svc.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.function.Predicate;

/**
 * The service's public API read (and written) directly with java.net.http, to check what the SDK stored
 * independently of the SDK's own parsing.
 */
final class RawApi {
    private final SvcService svc;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    RawApi(SvcService svc) {
        this.svc = svc;
    }

    HttpResponse<String> send(String method, String path, String jsonBody) throws Exception {
        String auth = Base64.getEncoder().encodeToString((svc.publicKey + ":" + svc.secretKey).getBytes(StandardCharsets.UTF_8));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(svc.adminUrl + path)).header("Authorization", "Basic " + auth)
                .timeout(Duration.ofSeconds(10));
        if (jsonBody == null) b.method(method, HttpRequest.BodyPublishers.noBody());
        else b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(jsonBody));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    JsonNode json(String method, String path, String jsonBody) throws Exception {
        HttpResponse<String> response = send(method, path, jsonBody);
        if (response.statusCode() >= 300) throw new AssertionError(method + " " + path + " answered " + response.statusCode() + ": " + response.body());
        return Json.MAPPER.readTree(response.body());
    }

    /**
     * GET path until the answer is 200 and satisfies {@code ready}, for at most {@code max}: ingestion and the
     * batch processor are asynchronous. Fails with the last answer.
     */
    JsonNode await(String path, Predicate<JsonNode> ready, Duration max) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        String last = "";
        while (true) {
            HttpResponse<String> response = send("GET", path, null);
            last = response.statusCode() + " " + response.body();
            if (response.statusCode() == 200) {
                JsonNode node = Json.MAPPER.readTree(response.body());
                if (ready.test(node)) return node;
            }
            if (System.nanoTime() > deadline) throw new AssertionError("GET " + path + " did not become ready within " + max + "; last answer: " + last);
            Thread.sleep(100);
        }
    }
}
