package dev.svc.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The public {@code fromEnv()} entry points, in a child JVM whose real environment holds the settings (a JVM cannot
 * change its own environment).
 */
@ExtendWith(SvcServiceExtension.class)
class EnvironmentProcessTest {
    record Result(int exitCode, String out) {}

    static Result runMain(Map<String, String> env) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder pb = new ProcessBuilder(java, "-cp", classpath, FromEnvMain.class.getName()).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("SVC_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) p.destroyForcibly();
        return new Result(p.exitValue(), out);
    }

    @Test
    void fromEnvReadsTheThreeVariables(SvcService svc) throws Exception {
        Result r = runMain(Map.of("SVC_PUBLIC_KEY", svc.publicKey, "SVC_SECRET_KEY", svc.secretKey, "SVC_BASE_URL", svc.adminUrl,
                "SVC_GATEWAY_URL", svc.gatewayUrl + "/v1", "SVC_GATEWAY_KEY", svc.gatewayKey));
        assertEquals(0, r.exitCode(), r.out());
        assertTrue(r.out().contains("project default Default"), r.out());
        assertTrue(r.out().contains("tracing " + svc.adminUrl + "/api/public/otel/v1/traces"), r.out());
        assertTrue(r.out().contains("gateway model demo"), r.out());
        // The span ended just before the JVM exited, without a flush: the exit hook sent it.
        Matcher trace = Pattern.compile("trace ([0-9a-f]{32})").matcher(r.out());
        assertTrue(trace.find(), r.out());
        JsonNode stored = new RawApi(svc).await("/api/public/traces/" + trace.group(1), t -> true, Duration.ofSeconds(20));
        assertEquals("exit-flush", stored.get("name").asText());
    }

    @Test
    void fromEnvWithoutTheSecretNamesTheVariable(SvcService svc) throws Exception {
        Result r = runMain(Map.of("SVC_PUBLIC_KEY", svc.publicKey, "SVC_BASE_URL", svc.adminUrl));
        assertEquals(2, r.exitCode(), r.out());
        assertTrue(r.out().contains("SvcConfigException: SVC_SECRET_KEY is not set"), r.out());
    }
}
