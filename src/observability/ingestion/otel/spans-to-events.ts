// OTel spans as ingestion events (docs/public-api.md "OpenTelemetry intake", Mapping): one observation event per span,
// and a trace-create for every root span and every span that sets trace fields. The events then take POST /ingestion's
// path (process-batch.ts), so spans land in the same traces and observations tables under the same merge rules.
import { withoutNulls, type IngestionEvent } from '../event-schema.ts';
import { isTrue } from './attribute-values.ts';
import { inputOf, observationBodyOf, outputOf } from './observation-fields.ts';
import { observationTypeOf } from './observation-type.ts';
import type { OtelSpan } from './otlp-spans.ts';
import { environmentOf, explicitTraceFields, spanOrResource, versionOf } from './trace-fields.ts';

/** Event types by observation type (event-schema.ts OBSERVATION_EVENT_TYPES, the other way round). */
const CREATE_EVENT: Record<string, string> = {
  SPAN: 'span-create',
  GENERATION: 'generation-create',
  EVENT: 'event-create',
  AGENT: 'agent-create',
  TOOL: 'tool-create',
  CHAIN: 'chain-create',
  RETRIEVER: 'retriever-create',
  EVALUATOR: 'evaluator-create',
  EMBEDDING: 'embedding-create',
  GUARDRAIL: 'guardrail-create',
};

const isRoot = (span: OtelSpan) =>
  span.parentSpanId === undefined || isTrue(span.attributes['langfuse.internal.as_root']);

/** A trace-create body, and which of its fields are only a root span's fallbacks (not set by a trace attribute). */
function traceBodyOf(
  span: OtelSpan,
  observationName: unknown,
): { body: Record<string, unknown>; fallbacks: string[] } | undefined {
  const explicit = explicitTraceFields(span);
  const root = isRoot(span);
  if (!root && Object.keys(explicit).length === 0) return undefined;
  // A root span names the trace and gives its input and output unless trace attributes do, on it or on any other span.
  const fallbacks = root
    ? withoutNulls({ name: observationName, input: inputOf(span.attributes), output: outputOf(span.attributes) })
    : {};
  const body = withoutNulls({
    id: span.traceId,
    timestamp: span.startTime,
    environment: environmentOf(span),
    version: versionOf(span),
    release: spanOrResource(span, ['langfuse.release']),
    ...fallbacks,
    ...explicit,
  });
  return { body, fallbacks: Object.keys(fallbacks).filter((field) => !(field in explicit)) };
}

/**
 * The events of the spans, with event ids `<span id>` (observation) and `<span id>-trace`. The envelope time is the
 * span's start, so where two spans set the same trace field the later one wins. A root span's fallbacks are listed in
 * `fillOnly` (by event id): they fill a trace field only where no span, in this export or stored, set it explicitly.
 */
export function eventsOfSpans(spans: readonly OtelSpan[]): {
  events: IngestionEvent[];
  spanOfEvent: Map<string, OtelSpan>;
  fillOnly: Map<string, string[]>;
} {
  const events: IngestionEvent[] = [];
  const spanOfEvent = new Map<string, OtelSpan>();
  const fillOnly = new Map<string, string[]>();
  const add = (event: IngestionEvent, span: OtelSpan) => {
    events.push(event);
    spanOfEvent.set(event.id, span);
  };
  for (const span of spans) {
    const type = observationTypeOf(span.attributes);
    const body = observationBodyOf(span, type);
    const trace = traceBodyOf(span, body.name);
    if (trace) {
      const id = `${span.spanId}-trace`;
      add({ id, type: 'trace-create', timestamp: span.startTime, body: trace.body }, span);
      if (trace.fallbacks.length > 0) fillOnly.set(id, trace.fallbacks);
    }
    add({ id: span.spanId, type: CREATE_EVENT[type], timestamp: span.startTime, body }, span);
  }
  return { events, spanOfEvent, fillOnly };
}
