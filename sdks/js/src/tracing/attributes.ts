// Trace-level and generation attributes under the names svc's OTel intake maps (docs/public-api.md, "OpenTelemetry
// intake"), so what is recorded here is what the dashboard and the public API show.
import { context, trace, type Attributes, type Span } from '@opentelemetry/api';
import { withPropagated, type PropagatedAttributes } from '../trace-context.ts';

export interface TraceAttributes {
  /** The trace's name; default: the root span's name. */
  name?: string;
  userId?: string;
  sessionId?: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
  /** The trace's input and output, any JSON value; default: the root span's. */
  input?: unknown;
  output?: unknown;
}

export interface GenerationAttributes {
  model?: string;
  modelParameters?: Record<string, unknown>;
  /** Token counts by kind, e.g. `{ input: 120, output: 35, total: 155 }` (exclusive buckets, as Langfuse counts). */
  usage?: Record<string, number>;
  /** Cost in USD: a total, or by kind, e.g. `{ input: 0.0012, output: 0.003, total: 0.0042 }`. */
  cost?: number | Record<string, number>;
  /** When the first token arrived (streaming). */
  completionStartTime?: Date | string;
  /** The generation's input (e.g. the messages) and output, any JSON value. */
  input?: unknown;
  output?: unknown;
}

const json = (value: unknown) => JSON.stringify(value) ?? 'null';

export const TRACE_KEYS = {
  name: 'langfuse.trace.name',
  userId: 'user.id',
  sessionId: 'session.id',
  tags: 'langfuse.trace.tags',
  metadata: 'langfuse.trace.metadata',
  input: 'langfuse.trace.input',
  output: 'langfuse.trace.output',
} as const;

/** The span attributes for trace fields (only the fields given). */
export function traceAttributes(fields: TraceAttributes): Attributes {
  const a: Attributes = {};
  if (fields.name !== undefined) a[TRACE_KEYS.name] = fields.name;
  if (fields.userId !== undefined) a[TRACE_KEYS.userId] = fields.userId;
  if (fields.sessionId !== undefined) a[TRACE_KEYS.sessionId] = fields.sessionId;
  if (fields.tags !== undefined) a[TRACE_KEYS.tags] = [...fields.tags];
  if (fields.metadata !== undefined) a[TRACE_KEYS.metadata] = json(fields.metadata);
  if (fields.input !== undefined) a[TRACE_KEYS.input] = json(fields.input);
  if (fields.output !== undefined) a[TRACE_KEYS.output] = json(fields.output);
  return a;
}

/** Sets trace fields from this span: the trace it belongs to takes them, whichever span of it sets them. */
export function setTraceAttributes(span: Span, fields: TraceAttributes): void {
  span.setAttributes(traceAttributes(fields));
}

/** Marks the span as a generation (an LLM call) and sets its model, parameters, usage, cost and timing. */
export function setGenerationAttributes(span: Span, fields: GenerationAttributes): void {
  const a: Attributes = { 'langfuse.observation.type': 'generation' };
  if (fields.model !== undefined) a['langfuse.observation.model.name'] = fields.model;
  if (fields.modelParameters !== undefined) a['langfuse.observation.model.parameters'] = json(fields.modelParameters);
  if (fields.usage !== undefined) a['langfuse.observation.usage_details'] = json(fields.usage);
  if (fields.cost !== undefined)
    a['langfuse.observation.cost_details'] = json(
      typeof fields.cost === 'number' ? { total: fields.cost } : fields.cost,
    );
  const completionStart =
    fields.completionStartTime === undefined ? Number.NaN : new Date(fields.completionStartTime).getTime();
  // An unreadable time is left out: a tracing helper never throws into the program it observes.
  if (!Number.isNaN(completionStart))
    a['langfuse.observation.completion_start_time'] = new Date(completionStart).toISOString();
  if (fields.input !== undefined) a['langfuse.observation.input'] = json(fields.input);
  if (fields.output !== undefined) a['langfuse.observation.output'] = json(fields.output);
  span.setAttributes(a);
}

/**
 * Runs `fn` with the user id, session id, tags and metadata set on the active span (if any) and on every span started
 * inside `fn` (through SvcSpanProcessor), and sent by the gateway-linked OpenAI client (`svc-sdk/openai`).
 */
export function withTraceAttributes<T>(fields: PropagatedAttributes, fn: () => T): T {
  trace.getActiveSpan()?.setAttributes(traceAttributes(fields));
  return context.with(withPropagated(context.active(), fields), fn);
}
