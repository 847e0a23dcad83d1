package dev.svc.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SvcServiceExtension.class)
class AuthTest {
    @Test
    void authCheckAnswersTheKeysProject(SvcService svc) {
        Project project = svc.client().authCheck();
        assertEquals("default", project.id());
        assertEquals("Default", project.name());
        assertEquals("default", project.organization().id());
    }

    @Test
    void aWrongSecretIs401WithTheServersMessage(SvcService svc) {
        SvcClient client = SvcClient.builder().baseUrl(svc.adminUrl).publicKey(svc.publicKey).secretKey("sk-svc-wrong").build();
        SvcApiException e = assertThrows(SvcApiException.class, client::authCheck);
        assertEquals(401, e.status());
        assertEquals("Invalid credentials. Confirm that you've configured the correct host.", e.serverMessage());
        assertEquals("UnauthorizedError", e.errorName());
        assertEquals("/api/public/projects", e.path());
        assertEquals("GET", e.method());
    }

    @Test
    void anUnknownPublicKeyIs401(SvcService svc) {
        SvcClient client = SvcClient.builder().baseUrl(svc.adminUrl).publicKey("pk-svc-unknown").secretKey(svc.secretKey).build();
        assertEquals(401, assertThrows(SvcApiException.class, client::authCheck).status());
    }

    @Test
    void aServerThatIsDownIsAConnectionError(SvcService svc) throws IOException {
        SvcClient client = SvcClient.builder().baseUrl("http://127.0.0.1:" + deadPort()).publicKey(svc.publicKey).secretKey(svc.secretKey)
                .maxRetries(1).build();
        SvcConnectionException e = assertThrows(SvcConnectionException.class, client::authCheck);
        assertTrue(e.getMessage().contains("after 2 attempt(s)"), e.getMessage());
    }

    /** A port nothing listens on: bound and released. */
    static int deadPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
