// A gateway trace as OpenTelemetry spans with the GenAI semantic conventions (the gen_ai registry as of semconv 1.37
// and later; names checked against @opentelemetry/semantic-conventions 1.45): one SERVER span for the request and a
// CLIENT child per provider attempt. Message content is never exported (docs/decisions.md "Issue 20: OTLP export").
import { hash } from 'node:crypto';
import {
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Attributes,
  type HrTime,
  type SpanContext,
} from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { ObservationRow } from '../../../platform/store/repos/observations.ts';
import type { TraceItem } from '../trace-item.ts';

/** `gen_ai.provider.name` of each provider family: the registry's well-known values. */
const PROVIDER_NAMES: Record<string, string> = {
  openai: 'openai',
  azure: 'azure.ai.openai',
  anthropic: 'anthropic',
  bedrock: 'aws.bedrock',
  vertex: 'gcp.vertex_ai',
  mock: 'svc.mock',
};

/** Request parameters with a `gen_ai.request.*` attribute of their own. */
const REQUEST_PARAMETERS: Record<string, string> = {
  temperature: 'gen_ai.request.temperature',
  top_p: 'gen_ai.request.top_p',
  max_tokens: 'gen_ai.request.max_tokens',
  max_completion_tokens: 'gen_ai.request.max_tokens',
  presence_penalty: 'gen_ai.request.presence_penalty',
  frequency_penalty: 'gen_ai.request.frequency_penalty',
  seed: 'gen_ai.request.seed',
  n: 'gen_ai.request.choice.count',
  stream: 'gen_ai.request.stream',
};

/** What every exported span shares: the resource (service.name, ...) and the instrumentation scope. */
export interface SpanSource {
  resource: Resource;
  scope: { name: string };
}

function hrTime(iso: string | null | undefined, fallback: HrTime): HrTime {
  const ms = iso ? Date.parse(iso) : NaN;
  if (Number.isNaN(ms)) return fallback;
  return [Math.floor(ms / 1000), (ms % 1000) * 1e6];
}

function duration(start: HrTime, end: HrTime): HrTime {
  const nanos = Math.max(0, (end[0] - start[0]) * 1e9 + (end[1] - start[1]));
  return [Math.floor(nanos / 1e9), nanos % 1e9];
}

/** A span id made from a stable name, so a batch exported twice carries the same ids. */
function spanIdOf(name: string): string {
  return hash('sha256', name).slice(0, 16);
}

/** The request id (a UUID) as the trace id; any other id is hashed into one. */
function traceIdOf(requestId: string): string {
  const hex = requestId.replaceAll('-', '').toLowerCase();
  if (/^[0-9a-f]{32}$/.test(hex) && !/^0+$/.test(hex)) return hex;
  return hash('sha256', requestId).slice(0, 32);
}

function spanContext(traceId: string, spanId: string): SpanContext {
  return { traceId, spanId, traceFlags: TraceFlags.SAMPLED };
}

function put(attributes: Attributes, key: string, value: unknown): void {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') attributes[key] = value;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function providerName(o: ObservationRow | undefined): string | undefined {
  const provider = o?.attributes?.['gateway.provider'];
  return typeof provider === 'string' ? (PROVIDER_NAMES[provider] ?? provider) : undefined;
}

function sumOf(usage: Record<string, number>, prefix: string): number {
  let n = 0;
  for (const [key, value] of Object.entries(usage)) if (key.startsWith(prefix)) n += value;
  return n;
}

/**
 * Usage, response model and finish reasons of the attempt that served the answer (the only one with usage). The
 * trace's usage details split tokens by price component (`output*` keys are the completion's); semconv's input
 * tokens include cache reads and writes, its output tokens the reasoning ones.
 */
function answerAttributes(attributes: Attributes, served: ObservationRow): void {
  const usage = served.usageDetails ?? {};
  if (usage.total !== undefined) {
    const output = sumOf(usage, 'output');
    attributes['gen_ai.usage.input_tokens'] = usage.total - output;
    attributes['gen_ai.usage.output_tokens'] = output;
  }
  put(attributes, 'gen_ai.usage.cache_read.input_tokens', usage.input_cached_tokens);
  const cacheWrites = sumOf(usage, 'input_cache_creation');
  if (cacheWrites > 0) attributes['gen_ai.usage.cache_creation.input_tokens'] = cacheWrites;
  put(attributes, 'gen_ai.usage.reasoning.output_tokens', usage.output_reasoning_tokens);
  put(attributes, 'gen_ai.response.model', served.attributes?.['gateway.response_model']);
  const reasons = strings(served.attributes?.['gateway.finish_reasons']);
  if (reasons.length > 0) attributes['gen_ai.response.finish_reasons'] = reasons;
}

function requestAttributes(item: TraceItem, operation: string, served: ObservationRow | undefined): Attributes {
  const { trace, observations } = item;
  const metadata = trace.metadata ?? {};
  const last = observations.at(-1);
  const provider = providerName(served ?? last);
  const attributes: Attributes = { 'gen_ai.operation.name': operation };
  put(attributes, 'gen_ai.provider.name', provider);
  // The name before semconv 1.37, which backends built on earlier versions still read.
  put(attributes, 'gen_ai.system', provider);
  put(attributes, 'gen_ai.request.model', metadata['gateway.fallback_from'] ?? trace.modelGroup);
  const parameters = last?.modelParameters ?? {};
  for (const [name, key] of Object.entries(REQUEST_PARAMETERS)) put(attributes, key, parameters[name]);
  const stop = typeof parameters.stop === 'string' ? [parameters.stop] : strings(parameters.stop);
  if (stop.length > 0) attributes['gen_ai.request.stop_sequences'] = stop;
  put(attributes, 'gen_ai.conversation.id', trace.sessionId);
  put(attributes, 'user.id', trace.userId);
  if (served) answerAttributes(attributes, served);
  attributes['svc.cost_usd'] = observations.reduce((sum, o) => sum + (o.totalCost ?? 0), 0);
  attributes['svc.request_id'] = trace.id;
  put(attributes, 'svc.project_id', trace.projectId);
  put(attributes, 'svc.agent_id', trace.agentId);
  put(attributes, 'svc.key', metadata['gateway.key']);
  put(attributes, 'svc.model_group', trace.modelGroup);
  put(attributes, 'svc.deployment', trace.deployment);
  put(attributes, 'svc.fallback_from', metadata['gateway.fallback_from']);
  put(attributes, 'svc.status', trace.status);
  put(attributes, 'http.response.status_code', trace.statusCode);
  put(attributes, 'error.type', trace.errorCode);
  attributes['svc.cache_hit'] = trace.cacheHit === true;
  attributes['svc.attempts'] = observations.length;
  return attributes;
}

function attemptSpan(
  o: ObservationRow,
  n: number,
  served: boolean,
  parent: SpanContext,
  operation: string,
  source: SpanSource,
  fallback: HrTime,
): ReadableSpan {
  const start = hrTime(o.startTime, fallback);
  const end = hrTime(o.endTime, start);
  const attributes: Attributes = { 'gen_ai.operation.name': operation };
  put(attributes, 'gen_ai.provider.name', providerName(o));
  put(attributes, 'gen_ai.system', providerName(o));
  put(attributes, 'gen_ai.request.model', o.model);
  if (served) {
    answerAttributes(attributes, o);
    attributes['svc.cost_usd'] = o.totalCost ?? 0;
    if (o.completionStartTime)
      attributes['gen_ai.response.time_to_first_chunk'] =
        (Date.parse(o.completionStartTime) - Date.parse(o.startTime)) / 1000;
  }
  put(attributes, 'svc.deployment', o.attributes?.['gateway.deployment']);
  put(attributes, 'svc.attempt.outcome', o.status);
  attributes['svc.attempt.number'] = n;
  put(attributes, 'http.response.status_code', o.attributes?.['gateway.provider_status']);
  if (o.status !== 'ok') attributes['error.type'] = String(o.status);
  return span({
    name: `${operation} ${o.model ?? o.attributes?.['gateway.deployment'] ?? ''}`.trim(),
    kind: SpanKind.CLIENT,
    context: spanContext(parent.traceId, spanIdOf(o.id)),
    parent,
    start,
    end,
    attributes,
    status:
      o.status === 'ok'
        ? { code: SpanStatusCode.UNSET }
        : { code: SpanStatusCode.ERROR, message: o.statusMessage ?? String(o.status) },
    source,
  });
}

interface SpanParts {
  name: string;
  kind: SpanKind;
  context: SpanContext;
  parent?: SpanContext;
  start: HrTime;
  end: HrTime;
  attributes: Attributes;
  status: ReadableSpan['status'];
  source: SpanSource;
}

function span(p: SpanParts): ReadableSpan {
  return {
    name: p.name,
    kind: p.kind,
    spanContext: () => p.context,
    parentSpanContext: p.parent,
    startTime: p.start,
    endTime: p.end,
    duration: duration(p.start, p.end),
    ended: true,
    status: p.status,
    attributes: p.attributes,
    links: [],
    events: [],
    resource: p.source.resource,
    instrumentationScope: p.source.scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/**
 * The spans of one gateway trace: the request, then its attempts. A request that came with `traceparent` joins the
 * caller's trace as a child of the caller's span; else the trace id is the request id.
 */
export function gatewaySpans(item: TraceItem, source: SpanSource): ReadableSpan[] {
  const { trace, observations } = item;
  const operation = trace.name === 'embeddings' ? 'embeddings' : 'chat';
  const failed = trace.status === 'error';
  // A stream cut mid-answer failed, but its attempt served part of it and carries what that consumed.
  const last = observations.at(-1);
  const served = !failed || last?.status === 'interrupted' ? last : undefined;
  const traceId = trace.parentTraceId ?? traceIdOf(trace.id);
  const root = spanContext(traceId, spanIdOf(trace.id));
  const start = hrTime(trace.startTime, [0, 0]);
  const attributes = requestAttributes(item, operation, served);
  const request = span({
    name: `${operation} ${attributes['gen_ai.request.model'] ?? ''}`.trim(),
    kind: SpanKind.SERVER,
    context: root,
    parent: trace.parentTraceId && trace.parentSpanId ? spanContext(traceId, trace.parentSpanId) : undefined,
    start,
    end: hrTime(trace.endTime, start),
    attributes,
    status: failed
      ? { code: SpanStatusCode.ERROR, message: trace.errorCode ?? undefined }
      : { code: SpanStatusCode.UNSET },
    source,
  });
  const attempts = observations.map((o, i) => attemptSpan(o, i + 1, o === served, root, operation, source, start));
  return [request, ...attempts];
}
