package dev.svc.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SvcServiceExtension.class)
class PromptsTest {
    private static String unique(String base) {
        return base + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void aTextPromptIsCreatedFetchedByLabelOrVersionAndCompiled(SvcService svc) throws Exception {
        SvcClient client = svc.client();
        String name = "team/support/" + unique("welcome");
        TextPrompt v1 = client.prompts().createText(name, "Hello {{ name }}, welcome to {{place}}. {{unknown}}",
                PromptOptions.builder().labels("production").tags("support").config(Map.of("model", "demo", "temperature", 0.2))
                        .commitMessage("first").build());
        assertEquals(1, v1.version());
        assertEquals(List.of("production", "latest"), v1.labels().stream().sorted(java.util.Comparator.reverseOrder()).toList());
        TextPrompt v2 = client.prompts().createText(name, "Hi {{name}}", PromptOptions.builder().labels("staging").build());
        assertEquals(2, v2.version());

        // The stored row, read past the SDK: the folder name was sent as one encoded segment.
        JsonNode stored = new RawApi(svc).json("GET", "/api/public/v2/prompts/" + name.replace("/", "%2F") + "?version=1", null);
        assertEquals("first", stored.get("commitMessage").asText());
        assertEquals("demo", stored.get("config").get("model").asText());

        TextPrompt production = client.prompts().getText(name);
        assertEquals(1, production.version());
        assertEquals("Hello Ada, welcome to Paris. {{unknown}}", production.compile(Map.of("name", "Ada", "place", "Paris")));
        assertEquals(Map.of("model", "demo", "temperature", 0.2), production.config());
        assertEquals(List.of("support"), production.tags());
        assertFalse(production.isFallback());
        assertEquals(2, client.prompts().get(name, PromptRequest.label("staging")).version());
        assertEquals(2, client.prompts().get(name, PromptRequest.label("latest")).version());
        assertEquals("Hi {{name}}", client.prompts().getText(name, PromptRequest.version(2)).prompt());
    }

    @Test
    void aChatPromptCompilesVariablesAndPlaceholders(SvcService svc) {
        SvcClient client = svc.client();
        String name = unique("chat");
        ChatPrompt created = client.prompts().createChat(name, List.of(
                ChatMessage.system("You are {{persona}}."),
                new ChatPlaceholder("history"),
                ChatMessage.user("{{question}}")), PromptOptions.builder().labels("production").build());
        assertEquals(3, created.prompt().size());
        ChatPrompt chat = client.prompts().getChat(name);
        assertInstanceOf(ChatPlaceholder.class, chat.prompt().get(1));
        List<ChatMessage> messages = chat.compile(Map.of("persona", "a helpful agent", "question", "Where is my order?"),
                Map.of("history", List.of(ChatMessage.user("Hi"), ChatMessage.assistant("Hello!"))));
        assertEquals(List.of(
                ChatMessage.system("You are a helpful agent."),
                ChatMessage.user("Hi"),
                ChatMessage.assistant("Hello!"),
                ChatMessage.user("Where is my order?")), messages);
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> chat.compile(Map.of()));
        assertTrue(missing.getMessage().contains("'history'"), missing.getMessage());
        SvcException wrongType = assertThrows(SvcException.class, () -> client.prompts().getText(name));
        ChatPrompt second = client.prompts().createChat(name, List.of(ChatMessage.user("{{question}}")));
        assertEquals(List.of("latest"), second.labels());
        assertEquals(1, client.prompts().getChat(name).version(), "production stays on version 1");
        assertTrue(wrongType.getMessage().contains("is a chat prompt, not text"), wrongType.getMessage());
    }

    @Test
    void updateLabelsMovesALabelToAnotherVersion(SvcService svc) {
        SvcClient client = svc.client();
        String name = unique("labels");
        client.prompts().createText(name, "one", PromptOptions.builder().labels("production").build());
        client.prompts().createText(name, "two");
        assertEquals("one", client.prompts().getText(name).prompt());
        Prompt updated = client.prompts().updateLabels(name, 2, List.of("production", "reviewed"));
        assertTrue(updated.labels().containsAll(List.of("production", "reviewed", "latest")), updated.labels().toString());
        // The update dropped this name's cached versions, so the next get sees the move at once.
        assertEquals("two", client.prompts().getText(name).prompt());
        assertFalse(client.prompts().get(name, PromptRequest.version(1)).labels().contains("production"));
    }

    @Test
    void errorsCarryTheStatusAndTheServersMessage(SvcService svc) {
        SvcClient client = svc.client();
        SvcApiException notFound = assertThrows(SvcApiException.class, () -> client.prompts().get("no-such-prompt"));
        assertEquals(404, notFound.status());
        assertEquals("Prompt not found: 'no-such-prompt' with label 'production'", notFound.serverMessage());
        String name = unique("bad-label");
        SvcApiException invalid = assertThrows(SvcApiException.class,
                () -> client.prompts().createText(name, "x", PromptOptions.builder().labels("Not Valid").build()));
        assertEquals(400, invalid.status());
        SvcApiException latest = assertThrows(SvcApiException.class, () -> {
            client.prompts().createText(name, "x");
            client.prompts().updateLabels(name, 1, List.of("latest"));
        });
        assertEquals(400, latest.status());
        assertThrows(IllegalArgumentException.class, () -> PromptRequest.version(0));
    }

    @Test
    void aFreshCachedVersionIsServedUntilItsTtlEnds(SvcService svc) {
        String name = unique("cached");
        SvcClient writer = svc.client();
        SvcClient reader = SvcClient.builder().baseUrl(svc.adminUrl).publicKey(svc.publicKey).secretKey(svc.secretKey)
                .promptCacheTtl(Duration.ofHours(1)).build();
        writer.prompts().createText(name, "first", PromptOptions.builder().labels("production").build());
        assertEquals("first", reader.prompts().getText(name).prompt());
        writer.prompts().createText(name, "second", PromptOptions.builder().labels("production").build());
        assertEquals("first", reader.prompts().getText(name).prompt(), "served from the cache within its TTL");
        assertEquals("second", reader.prompts().getText(name, PromptRequest.production().withCacheTtl(Duration.ZERO)).prompt());
    }

    @Test
    void whenTheServiceIsDownTheLastGoodVersionThenTheFallbackIsServed(SvcService svc) throws Exception {
        String name = unique("outage");
        svc.client().prompts().createChat(name, List.of(ChatMessage.system("Be {{tone}}.")), PromptOptions.builder().labels("production").build());
        SvcClient client;
        try (ForwardingProxy proxy = new ForwardingProxy(svc.adminUrl)) {
            client = SvcClient.builder().baseUrl(proxy.url()).publicKey(svc.publicKey).secretKey(svc.secretKey)
                    .promptCacheTtl(Duration.ZERO).maxRetries(1).build();
            assertEquals(1, client.prompts().getChat(name).version());
        }
        // The proxy is gone: its port refuses connections. The TTL is zero, so each get asks the service first.
        ChatPrompt lastGood = client.prompts().getChat(name);
        assertEquals(1, lastGood.version());
        assertFalse(lastGood.isFallback());
        assertEquals(List.of(ChatMessage.system("Be calm.")), lastGood.compile(Map.of("tone", "calm")));

        TextPrompt fallback = client.prompts().getText("never-fetched", PromptRequest.production().withFallback("Hello {{name}}"));
        assertTrue(fallback.isFallback());
        assertEquals(0, fallback.version());
        assertNull(fallback.id());
        assertEquals("Hello Ada", fallback.compile(Map.of("name", "Ada")));
        ChatPrompt chatFallback = client.prompts().getChat("never-fetched", PromptRequest.label("staging").withFallback(List.of(ChatMessage.user("{{q}}"))));
        assertTrue(chatFallback.isFallback());
        assertEquals(List.of(ChatMessage.user("why?")), chatFallback.compile(Map.of("q", "why?")));

        assertThrows(SvcConnectionException.class, () -> client.prompts().get("never-fetched"));
    }

    @Test
    void theFallbackIsAlsoAnsweredWhenThePromptDoesNotExist(SvcService svc) {
        TextPrompt p = svc.client().prompts().getText(unique("missing"), PromptRequest.version(3).withFallback("default text"));
        assertTrue(p.isFallback());
        assertEquals("default text", p.prompt());
    }
}
