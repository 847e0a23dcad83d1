// Stored rows in the REST API's shapes (docs/rest-api.md "Resources": Trace, Span, Agent). Duration is in milliseconds.
import type { Agent } from '../../src/platform/store/repos/agents.ts';
import type { StoredTrace } from '../../src/platform/store/repos/traces.ts';
import type { StoredObservation } from '../../src/platform/store/repos/observations.ts';

export function restSpan(o: StoredObservation) {
  return {
    ...restSpanReceipt(o),
    attributes: o.attributes,
    output: o.output ?? null,
    type: o.type,
    // The gateway records one GENERATION per provider attempt; its model and usage are what a reader looks for.
    ...(o.type === 'GENERATION' ? { model: o.model, usage: o.usageDetails, cost: o.totalCost } : {}),
  };
}

/**
 * Trace input and output are strings in the REST API's Trace, but gateway and ingested traces store any JSON value
 * (messages, an answer object): those are answered as their JSON text. A string stays itself; absent is null.
 */
function traceText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A trace as listed (no spans); `restTraceWithSpans` adds them for GET /v1/traces/{id}. */
export function restTrace(t: StoredTrace) {
  return {
    ...restTraceReceipt(t),
    input: traceText(t.input),
    output: traceText(t.output),
    tokens: t.tokens,
    cost: t.cost,
    metadata: t.metadata,
    tags: t.tags,
  };
}

export function restTraceWithSpans(t: StoredTrace, spans: readonly StoredObservation[]) {
  const { tokens, cost, metadata, tags, ...head } = restTrace(t);
  return { ...head, spans: spans.map(restSpan), tokens, cost, metadata, tags };
}

/**
 * What a write to a trace answers to a key of an ingestion-only project: the trace's state but none of its content,
 * since such keys may not read trace data (docs/rest-api.md "Ingestion-only projects") and a no-op PATCH must not
 * become a way to read it.
 */
export function restTraceReceipt(t: StoredTrace) {
  return {
    id: t.id,
    name: t.name,
    startTime: t.startTime,
    endTime: t.endTime,
    duration: t.durationMs,
    status: t.status,
  };
}

/** The span counterpart of `restTraceReceipt`: state without attributes or output. */
export function restSpanReceipt(o: StoredObservation) {
  return {
    id: o.id,
    traceId: o.traceId,
    name: o.name,
    parentId: o.parentObservationId,
    startTime: o.startTime,
    endTime: o.endTime,
    status: o.status,
  };
}

export function restAgent(a: Agent) {
  return {
    id: a.id,
    name: a.name,
    version: a.version,
    framework: a.framework,
    model: a.model,
    status: a.status,
    createdAt: a.createdAt,
  };
}
