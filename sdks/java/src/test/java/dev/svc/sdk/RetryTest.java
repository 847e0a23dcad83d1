package dev.svc.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.svc.sdk.ScriptedServer.Answer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Retries, backoff, retry-after and timeouts against a real local HTTP server with scripted answers. */
class RetryTest {
    private static final String PROJECTS = "{\"data\":[{\"id\":\"p1\",\"name\":\"P\",\"organization\":{\"id\":\"o\",\"name\":\"O\"},\"metadata\":{}}]}";
    private static final String PROMPT = "{\"id\":\"x\",\"name\":\"n\",\"version\":1,\"type\":\"text\",\"prompt\":\"hi\",\"config\":{},"
            + "\"labels\":[\"latest\"],\"tags\":[],\"commitMessage\":null,\"createdAt\":\"2026-01-01T00:00:00.000Z\",\"updatedAt\":\"2026-01-01T00:00:00.000Z\"}";

    private static SvcClient client(ScriptedServer server, int maxRetries) {
        return SvcClient.builder().baseUrl(server.url()).publicKey("pk-svc-a").secretKey("sk-svc-b").maxRetries(maxRetries).build();
    }

    @Test
    void a429IsRetriedAfterItsRetryAfter() throws Exception {
        try (ScriptedServer server = new ScriptedServer(
                new Answer(429, Map.of("retry-after", "1"), "{\"message\":\"slow down\"}", 0),
                Answer.of(200, PROJECTS))) {
            assertEquals("p1", client(server, 2).authCheck().id());
            assertEquals(2, server.received.size());
            String basic = "Basic " + Base64.getEncoder().encodeToString("pk-svc-a:sk-svc-b".getBytes(StandardCharsets.UTF_8));
            server.received.forEach(r -> assertEquals(basic, r.authorization()));
        }
    }

    @Test
    void serverErrorsOnReadsAreRetriedWithBackoffUntilTheRetriesRunOut() throws Exception {
        try (ScriptedServer server = new ScriptedServer(Answer.of(503, "{}"), Answer.of(502, "{}"), Answer.of(200, PROJECTS))) {
            assertEquals("p1", client(server, 2).authCheck().id());
            assertEquals(3, server.received.size());
        }
        try (ScriptedServer server = new ScriptedServer(Answer.of(503, "{}"), Answer.of(503, "{}"),
                Answer.of(503, "{\"message\":\"store unavailable\",\"error\":\"ServiceUnavailable\"}"))) {
            SvcApiException e = assertThrows(SvcApiException.class, () -> client(server, 2).authCheck());
            assertEquals(503, e.status());
            assertEquals("store unavailable", e.serverMessage());
            assertEquals("ServiceUnavailable", e.errorName());
            assertEquals(3, server.received.size());
        }
    }

    @Test
    void aNewPromptVersionIsNotSentTwiceAfterA5xxButIsAfterA429() throws Exception {
        try (ScriptedServer server = new ScriptedServer(Answer.of(500, "{\"message\":\"boom\"}"), Answer.of(201, PROMPT))) {
            SvcApiException e = assertThrows(SvcApiException.class, () -> client(server, 2).prompts().createText("n", "hi"));
            assertEquals(500, e.status());
            assertEquals(1, server.received.size());
        }
        try (ScriptedServer server = new ScriptedServer(new Answer(429, Map.of("retry-after", "0"), "{}", 0), Answer.of(201, PROMPT))) {
            assertEquals(1, client(server, 2).prompts().createText("n", "hi").version());
            assertEquals(2, server.received.size());
            assertEquals("POST", server.received.get(1).method());
        }
    }

    @Test
    void aRetryAfterLongerThanMaxRetryWaitFailsAtOnce() throws Exception {
        try (ScriptedServer server = new ScriptedServer(new Answer(429, Map.of("retry-after", "120"), "{\"message\":\"Rate limit\"}", 0))) {
            SvcClient client = SvcClient.builder().baseUrl(server.url()).publicKey("pk-svc-a").secretKey("sk-svc-b")
                    .maxRetryWait(Duration.ofSeconds(5)).build();
            SvcApiException e = assertThrows(SvcApiException.class, client::authCheck);
            assertEquals(429, e.status());
            assertEquals("Rate limit", e.serverMessage());
            assertEquals(1, server.received.size());
        }
    }

    @Test
    void anAnswerSlowerThanTheTimeoutIsAConnectionErrorWithoutRetries() throws Exception {
        try (ScriptedServer server = new ScriptedServer(new Answer(200, Map.of(), PROJECTS, 3000), new Answer(200, Map.of(), PROJECTS, 3000))) {
            SvcClient client = SvcClient.builder().baseUrl(server.url()).publicKey("pk-svc-a").secretKey("sk-svc-b")
                    .timeout(Duration.ofMillis(300)).maxRetries(2).build();
            SvcConnectionException e = assertThrows(SvcConnectionException.class, client::authCheck);
            assertTrue(e.getMessage().contains("HttpTimeoutException"), e.getMessage());
            assertEquals(1, server.received.size());
        }
    }

    @Test
    void aServerThatAcceptsAndNeverAnswersEndsAuthCheckAfterSvcTimeout() throws Exception {
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) accepted.add(silent.accept());
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            Map<String, String> env = Map.of("SVC_TIMEOUT", "0.3", "SVC_PUBLIC_KEY", "pk-svc-a", "SVC_SECRET_KEY", "sk-svc-b",
                    "SVC_BASE_URL", "http://127.0.0.1:" + silent.getLocalPort());
            SvcConnectionException e = assertThrows(SvcConnectionException.class, () -> new SvcClient.Builder(env).build().authCheck());
            assertTrue(e.getMessage().contains("HttpTimeoutException"), e.getMessage());
            assertEquals(1, accepted.size(), "the timeout is not retried");
            Map<String, String> malformed = new HashMap<>(env);
            malformed.put("SVC_TIMEOUT", "soon");
            SvcConfigException bad = assertThrows(SvcConfigException.class, () -> new SvcClient.Builder(malformed).build());
            assertTrue(bad.getMessage().startsWith("SVC_TIMEOUT is malformed"), bad.getMessage());
        } finally {
            for (Socket socket : accepted) socket.close();
        }
    }

    @Test
    void aBodyThatIsNotJsonIsReportedAsIs() throws Exception {
        try (ScriptedServer server = new ScriptedServer(Answer.of(404, "no such page"))) {
            SvcApiException e = assertThrows(SvcApiException.class, () -> client(server, 0).authCheck());
            assertEquals(404, e.status());
            assertEquals("no such page", e.serverMessage());
        }
    }
}
