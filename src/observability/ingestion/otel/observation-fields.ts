// Observation fields from a span (docs/public-api.md "OpenTelemetry intake", the Mapping table), as the body of an
// observation event.
import { withoutNulls } from '../event-schema.ts';
import { firstOf, flattenedUnder, objectOf, parsedJson, stringOf, type Attributes } from './attribute-values.ts';
import { genAiUsageOf } from './gen-ai-usage.ts';
import type { OtelSpan } from './otlp-spans.ts';
import { environmentOf, versionOf } from './trace-fields.ts';

const LEVELS = new Set(['DEBUG', 'DEFAULT', 'WARNING', 'ERROR']);
const NAME_KEYS = ['gen_ai.tool.name', 'genkit:name', 'logfire.msg', 'ai.toolCall.name'];
const MODEL_NAME_KEYS = [
  'langfuse.observation.model.name',
  'gen_ai.response.model',
  'ai.model.id',
  'gen_ai.request.model',
  'llm.response.model',
  'llm.model_name',
  'model',
];
const GEN_AI_PARAMETERS = [
  'temperature',
  'max_tokens',
  'top_p',
  'top_k',
  'frequency_penalty',
  'presence_penalty',
  'stop_sequences',
  'seed',
];
/** The SDKs' own span scope: their spans carry nothing but langfuse.* keys worth keeping as metadata. */
const LANGFUSE_SCOPE = 'langfuse-sdk';

/** An ISO time, possibly JSON-encoded twice (the JS SDK stringifies a Date). */
function isoOf(v: unknown): string | undefined {
  const parsed = parsedJson(v);
  return typeof parsed === 'string' && !Number.isNaN(Date.parse(parsed)) && /^\d{4}-\d\d-\d\dT/.test(parsed)
    ? new Date(parsed).toISOString()
    : undefined;
}

function modelParametersOf(a: Attributes): Record<string, unknown> | undefined {
  const explicit = objectOf(a['langfuse.observation.model.parameters']);
  if (explicit) return explicit;
  const params = Object.fromEntries(
    GEN_AI_PARAMETERS.filter((p) => a[`gen_ai.request.${p}`] !== undefined).map((p) => [p, a[`gen_ai.request.${p}`]]),
  );
  return Object.keys(params).length > 0 ? params : undefined;
}

function costDetailsOf(a: Attributes): Record<string, unknown> | undefined {
  const explicit = objectOf(a['langfuse.observation.cost_details']);
  if (explicit) return explicit;
  const total = Number(firstOf(a, ['gen_ai.usage.cost', 'llm.cost.total']));
  return Number.isFinite(total) && total >= 0 ? { total } : undefined;
}

/** GenAI messages with the system instructions first, as Langfuse shows them. */
function genAiInputOf(a: Attributes): unknown {
  const messages = parsedJson(a['gen_ai.input.messages']);
  const system = parsedJson(a['gen_ai.system_instructions']);
  if (system === undefined) return messages;
  const list = Array.isArray(messages) ? messages : messages === undefined ? [] : [messages];
  return [{ role: 'system', content: system }, ...list];
}

export function inputOf(a: Attributes): unknown {
  if (a['langfuse.observation.input'] !== undefined) return parsedJson(a['langfuse.observation.input']);
  if (a['gen_ai.input.messages'] !== undefined || a['gen_ai.system_instructions'] !== undefined) return genAiInputOf(a);
  const v = firstOf(a, ['gen_ai.tool.call.arguments', 'input.value']);
  return v === undefined ? undefined : parsedJson(v);
}

export function outputOf(a: Attributes): unknown {
  const v = firstOf(a, [
    'langfuse.observation.output',
    'gen_ai.output.messages',
    'gen_ai.tool.call.result',
    'output.value',
  ]);
  return v === undefined ? undefined : parsedJson(v);
}

/** Langfuse metadata, plus where the span came from; raw attributes only for spans of other instrumentations. */
function metadataOf(span: OtelSpan): Record<string, unknown> {
  const a = span.attributes;
  const metadata: Record<string, unknown> = {
    ...objectOf(a['langfuse.observation.metadata']),
    ...flattenedUnder(a, 'langfuse.observation.metadata'),
  };
  if (Object.keys(span.resourceAttributes).length > 0) metadata.resourceAttributes = span.resourceAttributes;
  if (span.scope.name !== undefined)
    metadata.scope = { name: span.scope.name, version: span.scope.version, attributes: span.scope.attributes };
  if (span.scope.name !== LANGFUSE_SCOPE) {
    const rest = Object.fromEntries(Object.entries(a).filter(([k]) => !k.startsWith('langfuse.')));
    if (Object.keys(rest).length > 0) metadata.attributes = rest;
  }
  return metadata;
}

/** The observation event body of a span of this type. */
export function observationBodyOf(span: OtelSpan, type: string): Record<string, unknown> {
  const a = span.attributes;
  const explicitLevel = stringOf(a['langfuse.observation.level'])?.toUpperCase();
  const usageDetails = objectOf(a['langfuse.observation.usage_details']) ?? genAiUsageOf(a);
  const body: Record<string, unknown> = {
    id: span.spanId,
    traceId: span.traceId,
    parentObservationId: span.parentSpanId,
    name: stringOf(firstOf(a, NAME_KEYS)) ?? span.name,
    startTime: span.startTime,
    endTime: span.endTime,
    level: explicitLevel && LEVELS.has(explicitLevel) ? explicitLevel : span.statusCode === 2 ? 'ERROR' : undefined,
    statusMessage: stringOf(a['langfuse.observation.status_message']) ?? span.statusMessage,
    model: stringOf(firstOf(a, MODEL_NAME_KEYS)),
    modelParameters: modelParametersOf(a),
    usageDetails,
    costDetails: costDetailsOf(a),
    completionStartTime: isoOf(a['langfuse.observation.completion_start_time']),
    input: inputOf(a),
    output: outputOf(a),
    metadata: metadataOf(span),
    version: versionOf(span),
    environment: environmentOf(span),
  };
  if (type === 'GENERATION') {
    const promptName = stringOf(firstOf(a, ['langfuse.observation.prompt.name', 'langfuse.prompt.name']));
    const promptVersion = Number(firstOf(a, ['langfuse.observation.prompt.version', 'langfuse.prompt.version']));
    // Both or neither (the ingestion rule); a name without a usable version is dropped.
    if (promptName !== undefined && Number.isInteger(promptVersion)) Object.assign(body, { promptName, promptVersion });
  }
  return withoutNulls(body);
}
