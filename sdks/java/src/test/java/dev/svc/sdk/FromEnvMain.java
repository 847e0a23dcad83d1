package dev.svc.sdk;

import com.openai.client.OpenAIClient;
import com.openai.models.models.Model;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.sdk.trace.SdkTracerProvider;

/**
 * Run by {@link EnvironmentProcessTest} in a child JVM: the fromEnv() entry points against the real service. It ends
 * a span and exits without flushing: the exit hook must send it.
 */
public final class FromEnvMain {
    private FromEnvMain() {}

    public static void main(String[] args) {
        try {
            Project project = SvcClient.fromEnv().authCheck();
            System.out.println("project " + project.id() + " " + project.name());
            SvcTracing tracing = SvcTracing.fromEnv();
            System.out.println("tracing " + tracing.endpoint());
            Span span = SdkTracerProvider.builder().addSpanProcessor(tracing.spanProcessor()).build().get("from-env").spanBuilder("exit-flush").startSpan();
            span.end();
            System.out.println("trace " + span.getSpanContext().getTraceId());
            OpenAIClient openai = SvcGateway.openAiClient();
            for (Model model : openai.models().list().data()) System.out.println("gateway model " + model.id());
            openai.close();
        } catch (SvcConfigException e) {
            System.out.println(e);
            System.exit(2);
        }
    }
}
