package dev.svc.sdk;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/** A real local HTTP server answering a scripted list of responses, recording each request it received. */
final class ScriptedServer implements AutoCloseable {
    record Answer(int status, Map<String, String> headers, String body, long delayMillis) {
        static Answer of(int status, String body) {
            return new Answer(status, Map.of(), body, 0);
        }
    }

    record Received(String method, String path, String authorization, String body) {}

    private final HttpServer server;
    private final ConcurrentLinkedQueue<Answer> script;
    final List<Received> received = new CopyOnWriteArrayList<>();

    ScriptedServer(Answer... answers) throws IOException {
        this.script = new ConcurrentLinkedQueue<>(List.of(answers));
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
                exchange.getRequestHeaders().getFirst("Authorization"), body));
        Answer answer = script.poll();
        if (answer == null) answer = Answer.of(500, "{\"message\":\"script exhausted\"}");
        if (answer.delayMillis() > 0) {
            try {
                Thread.sleep(answer.delayMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        answer.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
        exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
