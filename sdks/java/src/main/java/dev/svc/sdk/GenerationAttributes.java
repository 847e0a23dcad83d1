package dev.svc.sdk;

import io.opentelemetry.api.trace.Span;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Fields of an LLM call recorded on its span ({@link SvcSpans#setGeneration}): the span becomes a generation with
 * its model, model parameters, token usage, cost (USD), completion start time, input, output and prompt version.
 * When no cost is given the service prices the usage from its model table.
 */
public final class GenerationAttributes {
    private final Builder b;

    private GenerationAttributes(Builder b) {
        this.b = b;
    }

    public static Builder builder() {
        return new Builder();
    }

    void applyTo(Span span) {
        span.setAttribute(AttributeNames.OBSERVATION_TYPE, "generation");
        if (b.model != null) span.setAttribute(AttributeNames.MODEL, b.model);
        if (b.modelParameters != null) span.setAttribute(AttributeNames.MODEL_PARAMETERS, Json.write(b.modelParameters));
        if (!b.usage.isEmpty()) span.setAttribute(AttributeNames.USAGE_DETAILS, Json.write(b.usage));
        if (!b.cost.isEmpty()) span.setAttribute(AttributeNames.COST_DETAILS, Json.write(b.cost));
        if (b.completionStartTime != null) span.setAttribute(AttributeNames.COMPLETION_START_TIME, b.completionStartTime.toString());
        if (b.hasInput) span.setAttribute(AttributeNames.OBSERVATION_INPUT, Json.write(b.input));
        if (b.hasOutput) span.setAttribute(AttributeNames.OBSERVATION_OUTPUT, Json.write(b.output));
        if (b.promptName != null) {
            span.setAttribute(AttributeNames.PROMPT_NAME, b.promptName);
            span.setAttribute(AttributeNames.PROMPT_VERSION, (long) b.promptVersion);
        }
    }

    public static final class Builder {
        private String model;
        private Map<String, ?> modelParameters;
        private final Map<String, Long> usage = new LinkedHashMap<>();
        private final Map<String, Double> cost = new LinkedHashMap<>();
        private Instant completionStartTime;
        private Object input;
        private boolean hasInput;
        private Object output;
        private boolean hasOutput;
        private String promptName;
        private int promptVersion;

        private Builder() {}

        /** The model called, e.g. {@code gpt-4o-mini}. */
        public Builder model(String model) {
            this.model = model;
            return this;
        }

        /** E.g. {@code Map.of("temperature", 0.2, "max_tokens", 256)}. */
        public Builder modelParameters(Map<String, ?> modelParameters) {
            this.modelParameters = modelParameters;
            return this;
        }

        /** Input and output tokens; the total is their sum. */
        public Builder usage(long inputTokens, long outputTokens) {
            usage.put("input", inputTokens);
            usage.put("output", outputTokens);
            usage.put("total", inputTokens + outputTokens);
            return this;
        }

        /**
         * Token counts by usage key, as exclusive buckets ({@code input}, {@code output}, {@code total},
         * {@code input_cached_tokens}, {@code output_reasoning_tokens}, ...); added to those of {@link #usage}.
         */
        public Builder usageDetails(Map<String, Long> details) {
            usage.putAll(details);
            return this;
        }

        /** The call's total cost in USD. */
        public Builder cost(double totalUsd) {
            cost.put("total", totalUsd);
            return this;
        }

        /** Cost in USD by usage key ({@code input}, {@code output}, {@code total}); added to that of {@link #cost}. */
        public Builder costDetails(Map<String, Double> details) {
            cost.putAll(details);
            return this;
        }

        /** When the first token arrived (streaming): the service reports time to first token from it. */
        public Builder completionStartTime(Instant time) {
            this.completionStartTime = time;
            return this;
        }

        /** The messages sent, as any value Jackson writes as JSON. */
        public Builder input(Object input) {
            this.input = input;
            this.hasInput = true;
            return this;
        }

        public Builder output(Object output) {
            this.output = output;
            this.hasOutput = true;
            return this;
        }

        /** Links the generation to the prompt version it used (not for fallback prompts, which have no version). */
        public Builder prompt(Prompt prompt) {
            if (!prompt.isFallback()) {
                this.promptName = prompt.name();
                this.promptVersion = prompt.version();
            }
            return this;
        }

        public GenerationAttributes build() {
            return new GenerationAttributes(this);
        }
    }
}
