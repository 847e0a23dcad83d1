// Turns one finished gateway request into a trace and one GENERATION observation per provider attempt
// (docs/decisions.md "Gateway traces"; which refusals are traced: the "traced" column of the error table in
// docs/api.md). What a guardrail matched (ctx.redactions) is replaced before the trace leaves this module, so no
// queue, spill file or row ever holds it.
import type { DeploymentConfig } from '../../platform/config/types.ts';
import type { AttemptRecord, RequestContext, StreamedAnswer } from '../../plugin-api/contract.ts';
import { costDetailsOf, isLongContext, usageDetailsOf } from '../../platform/pricing/cost.ts';
import { BUILTIN_PRICES_VERSION } from '../../platform/pricing/prices.ts';
import type { ObservationRow } from '../../platform/store/repos/observations.ts';
import { endUserOf, type CallerContext } from './caller-context.ts';
import { isoTime } from './iso-time.ts';
import { redactionRecords, redactor } from './redact.ts';
import type { TraceItem } from './trace-item.ts';

export interface TraceOptions {
  recordContent: boolean;
  now: number;
  caller: CallerContext;
  /** The assistant message of a streamed response, when content is recorded. */
  streamOutput?: Record<string, unknown>;
  /** The response model and finish reasons of a streamed response, whether content is recorded or not. */
  streamFacts?: StreamedAnswer;
  deployments: ReadonlyMap<string, DeploymentConfig>;
}

const PARAMETERS = [
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'stream',
  'n',
  'stop',
  'presence_penalty',
  'frequency_penalty',
  'seed',
  'response_format',
  'tool_choice',
  'encoding_format',
  'dimensions',
];

function modelParameters(body: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!body) return out;
  for (const p of PARAMETERS) if (body[p] !== undefined) out[p] = body[p];
  return out;
}

function requestInput(ctx: RequestContext): unknown {
  if (!ctx.body) return null;
  if (ctx.route === 'embeddings') return ctx.body.input;
  return ctx.body.tools === undefined ? ctx.body.messages : { messages: ctx.body.messages, tools: ctx.body.tools };
}

function responseOutput(ctx: RequestContext, options: TraceOptions): unknown {
  if (options.streamOutput) return options.streamOutput;
  const response = ctx.response;
  if (!response || response.kind !== 'json') return errorOutput(ctx);
  const body = response.body as Record<string, any> | undefined;
  if (ctx.route === 'embeddings') {
    const data = Array.isArray(body?.data) ? body.data : [];
    const first = data[0]?.embedding;
    return { vectors: data.length, dimensions: Array.isArray(first) ? first.length : null };
  }
  const choices = Array.isArray(body?.choices) ? body.choices : [];
  if (choices.length === 1) return { ...choices[0].message, finish_reason: choices[0].finish_reason };
  return choices.map((c: Record<string, any>) => ({ ...c.message, finish_reason: c.finish_reason }));
}

function errorOutput(ctx: RequestContext): unknown {
  if (ctx.error === undefined) return null;
  return { error: { code: ctx.errorCode ?? null, message: (ctx.error as Error)?.message ?? String(ctx.error) } };
}

/**
 * The caller's svc-metadata without the keys the gateway owns: `gateway.*` and `svc.*` facts are set (or left out)
 * by the gateway alone, so a caller cannot make a served request look refused, aborted or failed over.
 */
function callerMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(metadata)) if (!k.startsWith('gateway.') && !k.startsWith('svc.')) out[k] = v;
  return out;
}

export function gatewayTrace(ctx: RequestContext, options: TraceOptions): TraceItem {
  const principal = ctx.principal!;
  const projectId = principal.projectId;
  const status = ctx.status ?? 200;
  const failed = status >= 400 || ctx.error !== undefined;
  const redact = redactor(ctx.redactions);
  const metadata: Record<string, unknown> = {
    ...redact(callerMetadata(options.caller.metadata)),
    'gateway.route': ctx.route === 'chat' ? '/v1/chat/completions' : '/v1/embeddings',
    'gateway.status': status,
    'gateway.key': principal.alias,
    'gateway.stream': ctx.stream,
  };
  if (ctx.errorCode) metadata['gateway.error_code'] = ctx.errorCode;
  for (const [k, v] of Object.entries(ctx.annotations)) metadata[k] = v;
  if (ctx.group && ctx.servedGroup && ctx.servedGroup !== ctx.group.name)
    metadata['gateway.fallback_from'] = ctx.group.name;
  if (ctx.clientAborted) metadata['gateway.client_aborted'] = true;
  if (ctx.usageEstimated) metadata['gateway.usage_estimated'] = ctx.usageEstimated;
  else if (ctx.costEstimated) metadata['gateway.cost_estimated_at_admission'] = true;
  if (options.caller.ignored.length > 0) metadata['svc.ignored_headers'] = options.caller.ignored;
  if (ctx.redactions.length > 0) metadata['gateway.redactions'] = redactionRecords(ctx.redactions);
  const model = typeof ctx.body?.model === 'string' && ctx.body.model !== '' ? ctx.body.model : ctx.group?.name;
  const parameters = modelParameters(ctx.body);
  // A stream cut after its first chunk was served in part: its attempt carries what it consumed.
  const answered = !failed || ctx.usageEstimated === 'stream_interrupted';
  const observations: ObservationRow[] = ctx.attempts.map((a, i) =>
    attemptObservation(ctx, a, i, projectId, options, parameters, i === ctx.attempts.length - 1 && answered, redact),
  );
  return {
    trace: {
      projectId,
      id: ctx.id,
      name: ctx.route === 'chat' ? 'chat.completions' : 'embeddings',
      status: failed ? 'error' : 'completed',
      startTime: isoTime(ctx.receivedAt),
      endTime: isoTime(options.now),
      input: options.recordContent ? redact(requestInput(ctx)) : null,
      output: redact(options.recordContent ? responseOutput(ctx, options) : failed ? errorOutput(ctx) : null),
      metadata,
      tags: redact(options.caller.tags),
      userId: redact(options.caller.userId ?? endUserOf(ctx.body) ?? null),
      sessionId: redact(options.caller.sessionId ?? null),
      agentId: principal.agentId ?? null,
      source: 'gateway',
      modelGroup: ctx.servedGroup ?? ctx.group?.name ?? model ?? null,
      deployment: ctx.deployment ?? null,
      statusCode: status,
      errorCode: ctx.errorCode ?? null,
      cacheHit: ctx.source === 'cache',
      parentTraceId: options.caller.parentTraceId ?? null,
      parentSpanId: options.caller.parentSpanId ?? null,
    },
    observations,
  };
}

function attemptObservation(
  ctx: RequestContext,
  a: AttemptRecord,
  index: number,
  projectId: string,
  options: TraceOptions,
  parameters: Record<string, unknown>,
  served: boolean,
  redact: <T>(value: T) => T,
): ObservationRow {
  const start = a.startedAt ?? ctx.receivedAt;
  // A served stream's attempt record (x-svc-attempts, sent with the first chunk) can only measure the time to that
  // chunk; in the trace the attempt lasts to the stream's end, as its generation does, and the first chunk is kept apart.
  const streamed = served && ctx.stream;
  const end = streamed ? options.now : start + a.ms;
  const deployment = options.deployments.get(a.d);
  const usage = served ? ctx.usage : undefined;
  // Priced usage is costed per component (Langfuse's cost_details); otherwise the cost is the admission estimate.
  const costDetails = usage && ctx.price ? costDetailsOf(usage, ctx.price) : served ? { total: ctx.cost ?? 0 } : {};
  const cost = costDetails.total ?? 0;
  const attributes: Record<string, unknown> = {
    'gateway.deployment': a.d,
    'gateway.outcome': a.o,
    'gateway.duration_ms': end - start,
  };
  if (usage && ctx.price) {
    attributes['gateway.price_source'] = deployment?.price ? 'deployment' : `builtin@${BUILTIN_PRICES_VERSION}`;
    if (isLongContext(usage, ctx.price)) attributes['gateway.price_tier'] = 'long_context';
  }
  if (streamed) attributes['gateway.first_chunk_ms'] = a.ms;
  if (deployment) attributes['gateway.provider'] = deployment.provider;
  if (a.st !== undefined) attributes['gateway.provider_status'] = a.st;
  if (served) Object.assign(attributes, answerFacts(ctx, options.streamFacts));
  if (served && ctx.usageEstimated) attributes['gateway.usage_estimated'] = ctx.usageEstimated;
  // The attempt record says ok (the stream had begun when x-svc-attempts was sent); the generation says it broke.
  const interrupted = served && ctx.usageEstimated === 'stream_interrupted';
  return {
    projectId,
    id: `${ctx.id}.${index + 1}`,
    traceId: ctx.id,
    parentObservationId: null,
    type: 'GENERATION',
    name: `attempt ${index + 1}: ${a.d}`,
    startTime: isoTime(start),
    endTime: isoTime(end),
    completionStartTime: streamed ? isoTime(start + a.ms) : null,
    status: interrupted ? 'interrupted' : a.o,
    level: interrupted || a.o === 'failed' ? 'ERROR' : a.o === 'ok' ? 'DEFAULT' : 'WARNING',
    statusMessage: redact(interrupted ? streamError(ctx) : (a.why ?? null)),
    attributes,
    model: deployment?.model ?? deployment?.deployment ?? null,
    modelParameters: parameters,
    usageDetails: usage ? usageDetailsOf(usage) : {},
    costDetails,
    totalTokens: usage?.total_tokens ?? 0,
    totalCost: cost,
  };
}

/** What cut a stream, as the client's error event says it. */
function streamError(ctx: RequestContext): string {
  return `stream interrupted: ${ctx.error instanceof Error ? ctx.error.message : String(ctx.error)}`;
}

/**
 * The model the provider says answered and the finish reasons of the served answer, from the JSON body or the
 * stream's chunks: facts, not content, so kept whatever `record_content` says.
 */
function answerFacts(ctx: RequestContext, stream: StreamedAnswer | undefined): Record<string, unknown> {
  const facts: Record<string, unknown> = {};
  const body = ctx.response?.kind === 'json' ? (ctx.response.body as Record<string, any> | undefined) : undefined;
  const model: unknown = body ? body.model : stream?.model;
  if (typeof model === 'string') facts['gateway.response_model'] = model;
  const reasons = body
    ? (Array.isArray(body.choices) ? body.choices : [])
        .map((c: unknown) => (c as { finish_reason?: unknown } | null)?.finish_reason)
        .filter((r: unknown) => typeof r === 'string')
    : (stream?.finishReasons() ?? []);
  if (reasons.length > 0) facts['gateway.finish_reasons'] = reasons;
  return facts;
}
