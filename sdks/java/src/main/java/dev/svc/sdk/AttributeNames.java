package dev.svc.sdk;

/**
 * The span attribute names svc's OTel intake maps to trace and observation fields (src/observability/ingestion/otel/ in the
 * service; Langfuse's names, so the Langfuse SDKs and this one land the same way).
 */
final class AttributeNames {
    static final String TRACE_NAME = "langfuse.trace.name";
    static final String USER_ID = "langfuse.user.id";
    static final String SESSION_ID = "langfuse.session.id";
    static final String TRACE_TAGS = "langfuse.trace.tags";
    static final String TRACE_METADATA = "langfuse.trace.metadata";
    static final String TRACE_INPUT = "langfuse.trace.input";
    static final String TRACE_OUTPUT = "langfuse.trace.output";

    static final String OBSERVATION_TYPE = "langfuse.observation.type";
    static final String OBSERVATION_INPUT = "langfuse.observation.input";
    static final String OBSERVATION_OUTPUT = "langfuse.observation.output";
    static final String MODEL = "langfuse.observation.model.name";
    static final String MODEL_PARAMETERS = "langfuse.observation.model.parameters";
    static final String USAGE_DETAILS = "langfuse.observation.usage_details";
    static final String COST_DETAILS = "langfuse.observation.cost_details";
    static final String COMPLETION_START_TIME = "langfuse.observation.completion_start_time";
    static final String PROMPT_NAME = "langfuse.observation.prompt.name";
    static final String PROMPT_VERSION = "langfuse.observation.prompt.version";

    private AttributeNames() {}
}
