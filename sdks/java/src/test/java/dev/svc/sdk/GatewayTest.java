package dev.svc.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.openai.client.OpenAIClient;
import com.openai.core.http.HttpResponseFor;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SvcServiceExtension.class)
class GatewayTest {
    @Test
    void headersCarryTheCurrentSpanAndSvcContext(SvcService svc) {
        assertEquals(Map.of(), SvcGateway.headers(), "nothing to link outside a span and context");
        SvcTracing tracing = SvcTracing.builder().baseUrl(svc.adminUrl).publicKey(svc.publicKey).secretKey(svc.secretKey).flushAtExit(false).build();
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(tracing.spanProcessor()).build();
        Span span = provider.get("sdk-test").spanBuilder("step").startSpan();
        try (Scope s = span.makeCurrent()) {
            SpanContext sc = span.getSpanContext();
            Map<String, String> headers = SvcGateway.headers();
            assertEquals(1, headers.size(), headers.toString());
            assertTrue(headers.get("traceparent").matches("00-" + sc.getTraceId() + "-" + sc.getSpanId() + "-0[13]"), headers.toString());
            // Trace fields set on the current span are found when no SvcContext is current.
            SvcSpans.updateCurrentTrace(TraceAttributes.builder().sessionId("span-session").userId("span-user").build());
            assertEquals("span-session", SvcGateway.headers().get("svc-session-id"));
            try (Scope c = SvcContext.current().withSessionId("ctx-session").makeCurrent()) {
                assertEquals("ctx-session", SvcGateway.headers().get("svc-session-id"));
                assertEquals("span-user", SvcGateway.headers().get("svc-user-id"));
            }
        } finally {
            span.end();
            provider.shutdown();
        }
    }

    @Test
    void theGatewaysTraceOfAnOpenAiCallIsAChildOfTheAgentSpan(SvcService svc) throws Exception {
        SvcTracing tracing = SvcTracing.builder().baseUrl(svc.adminUrl).publicKey(svc.publicKey).secretKey(svc.secretKey).flushAtExit(false).build();
        SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(tracing.spanProcessor()).build();
        Tracer tracer = provider.get("sdk-test");
        // A trailing /v1 on the gateway URL is accepted.
        OpenAIClient openai = SvcGateway.openAiClient(svc.gatewayUrl + "/v1", svc.gatewayKey);
        Span agent;
        String gatewayTraceId;
        try (Scope ctx = SvcContext.current().withSessionId("chat-7").withUserId("grace").makeCurrent()) {
            agent = tracer.spanBuilder("agent-step").startSpan();
            try (Scope s = agent.makeCurrent()) {
                HttpResponseFor<ChatCompletion> response = openai.chat().completions().withRawResponse().create(ChatCompletionCreateParams.builder()
                        .model("demo").addUserMessage("Where is my order?").build());
                gatewayTraceId = response.headers().values("x-svc-request-id").get(0);
                ChatCompletion completion = response.parse();
                assertTrue(completion.choices().get(0).message().content().orElse("").contains("Where is my order?"));
            } finally {
                agent.end();
            }
        }
        assertTrue(tracing.flush(Duration.ofSeconds(10)));

        RawApi api = new RawApi(svc);
        String agentTraceId = agent.getSpanContext().getTraceId();
        // Found by the agent's span: the public API also reads the linked gateway call's attempt into this trace.
        String agentSpanId = agent.getSpanContext().getSpanId();
        api.await("/api/public/traces/" + agentTraceId, t -> t.get("observations").findValuesAsText("id").contains(agentSpanId), Duration.ofSeconds(20));
        JsonNode gatewayTrace = api.await("/api/public/traces/" + gatewayTraceId, t -> true, Duration.ofSeconds(20));
        assertEquals("chat-7", gatewayTrace.get("sessionId").asText());
        assertEquals("grace", gatewayTrace.get("userId").asText());
        assertTrue(gatewayTrace.get("totalCost").asDouble() > 0, gatewayTrace.toString());
        // The stored parent/child relation: the gateway trace names the agent's trace and span.
        assertEquals(agentTraceId, gatewayTrace.path("parentTraceId").asText(null), "parentTraceId of " + gatewayTrace);
        assertEquals(agent.getSpanContext().getSpanId(), gatewayTrace.path("parentObservationId").asText(null), "parentObservationId of " + gatewayTrace);
        provider.shutdown();
        openai.close();
    }
}
