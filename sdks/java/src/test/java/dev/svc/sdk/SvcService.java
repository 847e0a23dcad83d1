package dev.svc.sdk;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The real svc service of this repository ({@code svc start} from its TypeScript sources on the project's pinned
 * Node) on free ports with a temporary embedded store, and the key pair and demo gateway key it prints at first
 * start. The Java twin of test/python/svc_service.py.
 */
final class SvcService implements AutoCloseable {
    static final Path ROOT = Path.of(System.getProperty("user.dir")).resolve("../..").normalize();

    private static final Pattern LISTENING = Pattern.compile(
            "svc gateway listening on \\S+ \\([^)]*\\): (\\S+)/v1 \\(role all\\)\nsvc admin listening on \\S+ \\([^)]*\\): (\\S+)");
    private static final Pattern PUBLIC = Pattern.compile("public key: (\\S+)");
    private static final Pattern SECRET = Pattern.compile("secret key: (\\S+)");
    private static final Pattern GATEWAY_KEY = Pattern.compile("Generated gateway key for 'demo' \\(shown once; keep it\\): (\\S+)");

    final String gatewayUrl;
    final String adminUrl;
    final String publicKey;
    final String secretKey;
    final String gatewayKey;
    private final Process process;
    private final Path workDir;

    private SvcService(Process process, Path workDir, String out) {
        this.process = process;
        this.workDir = workDir;
        Matcher urls = LISTENING.matcher(out);
        if (!urls.find()) throw new IllegalStateException("no listening line in:\n" + out);
        this.gatewayUrl = urls.group(1);
        this.adminUrl = urls.group(2);
        this.publicKey = grab(PUBLIC, out);
        this.secretKey = grab(SECRET, out);
        this.gatewayKey = grab(GATEWAY_KEY, out);
    }

    /** A client of this service, the other settings at their defaults. */
    SvcClient client() {
        return SvcClient.builder().baseUrl(adminUrl).publicKey(publicKey).secretKey(secretKey).build();
    }

    static SvcService start() throws IOException, InterruptedException {
        Path workDir = Files.createTempDirectory("svc-java-sdk-");
        Path config = workDir.resolve("gateway.yaml");
        Files.writeString(config, configText(workDir.resolve("data")));
        ProcessBuilder pb = new ProcessBuilder(ROOT.resolve("node_modules/.bin/node").toString(), ROOT.resolve("src/runtime/cli.ts").toString(),
                "start", "--config", config.toString()).directory(ROOT.toFile());
        pb.environment().clear();
        pb.environment().put("PATH", System.getenv().getOrDefault("PATH", ""));
        pb.environment().put("HOME", System.getenv().getOrDefault("HOME", ""));
        pb.environment().put("NODE_OPTIONS", "");
        pb.redirectError(workDir.resolve("stderr.log").toFile());
        Process process = pb.start();
        StringBuffer out = new StringBuffer();
        CountDownLatch listening = new CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    out.append(line).append('\n');
                    if (LISTENING.matcher(out).find()) listening.countDown();
                }
            } catch (IOException closed) {
                // the process ended
            }
        }, "svc-stdout");
        reader.setDaemon(true);
        reader.start();
        if (!listening.await(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("svc start did not listen within 60 s:\n" + out + "\n" + tail(workDir.resolve("stderr.log")));
        }
        return new SvcService(process, workDir, out.toString());
    }

    private static String configText(Path dataDir) throws IOException {
        String text = Files.readString(ROOT.resolve("gateway.yaml"))
                .replace("host: 0.0.0.0, port: 8080, admin_port: 8081", "host: 127.0.0.1, port: 0, admin_port: 0")
                .replace("data_dir: ./data", "data_dir: " + dataDir);
        if (!text.contains("port: 0, admin_port: 0") || !text.contains(dataDir.toString())) {
            throw new IllegalStateException("gateway.yaml changed shape: update sdks/java/src/test/java/dev/svc/sdk/SvcService.java");
        }
        return text;
    }

    private static String grab(Pattern pattern, String out) {
        Matcher m = pattern.matcher(out);
        if (!m.find()) throw new IllegalStateException("svc start did not print " + pattern + ":\n" + out);
        return m.group(1);
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }

    /** SIGTERM, as an operator stops it; then the temporary store is removed. */
    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(workDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
