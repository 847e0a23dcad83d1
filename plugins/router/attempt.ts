// One provider attempt: calls the deployment, records the attempt (x-svc-attempts and the trace), judges a failure
// and benches the deployment on a health signal. A stream is handed on once its first chunk arrived: the commit point,
// after which nothing is retried (docs/architecture.md "One chat request").
import {
  type BenchBoard,
  type BenchedDeployments,
  choicesAnswerChars,
  type Clock,
  costOf,
  costOfTokens,
  type DeploymentConfig,
  type GatewayResponse,
  type ModelGroupConfig,
  type PriceConfig,
  type ProviderAdapter,
  type ProviderResult,
  type RequestContext,
  UpstreamError,
} from '../../src/plugin-api/index.ts';
import { benchIfAllowed } from './bench.ts';
import { judgeFailure } from './outcome.ts';
import { bookEstimatedUsage, bookMissingUsage, takeProviderUsage } from './provider-usage.ts';
import { relay, type DrainLimits } from './stream-relay.ts';

export interface AttemptServices {
  clock: Clock;
  bench: BenchBoard;
  /** Price per deployment id (undefined: unpriced). */
  prices: ReadonlyMap<string, PriceConfig | undefined>;
  drain: DrainLimits;
}

/** The response, or the failure and whether another attempt (or the fallback group) may still succeed. */
export type AttemptResult = { response: GatewayResponse } | { error: UpstreamError; stop: boolean };

/** Longest `why` kept in an attempt record. */
const WHY_MAX = 200;

export async function attempt(
  services: AttemptServices,
  ctx: RequestContext,
  group: ModelGroupConfig,
  benched: BenchedDeployments,
  d: DeploymentConfig,
  adapter: ProviderAdapter,
): Promise<AttemptResult> {
  const { clock, prices } = services;
  const started = performance.now();
  const startedAt = clock.now();
  const timeoutMs = d.timeout_ms ?? group.routing.timeout_ms;
  // Non-streamed attempts are bounded by the transport's header and body timeouts alone; a stream also needs an
  // abort handle (idle gaps between chunks, the drain deadline after a client disconnect).
  const controller = ctx.stream ? new AbortController() : undefined;
  const timer =
    controller && setTimeout(() => controller.abort(new DOMException('attempt timed out', 'TimeoutError')), timeoutMs);
  const call = { deployment: d, body: ctx.body!, bodyBytes: ctx.bodyBytes, signal: controller?.signal, timeoutMs };
  // The last deployment tried is named on failures too (x-svc-deployment: "a deployment was chosen").
  ctx.deployment = d.id;
  try {
    let response: GatewayResponse;
    if (controller && timer) {
      const iterator = (await adapter.chatStream(call))[Symbol.asyncIterator]();
      const first = await iterator.next();
      if (first.done) throw new UpstreamError('invalid_response', 'provider ended the stream without a chunk');
      // The attempt timer now bounds each gap between chunks.
      timer.refresh();
      const events = relay(ctx, first.value, iterator, controller, timer, services.drain);
      response = { kind: 'stream', status: 200, source: 'upstream', events };
      // Until the stream's usage arrives its cost is the admission estimate.
      const { promptTokens, outputTokens } = ctx.estimate();
      ctx.cost = costOfTokens(promptTokens, outputTokens, prices.get(d.id));
      ctx.costEstimated = true;
    } else {
      const result: ProviderResult =
        ctx.route === 'embeddings' ? await adapter.embeddings(call) : await adapter.chat(call);
      response = { kind: 'json', status: 200, source: 'upstream', body: result.body, raw: result.raw };
      bookAnswerUsage(ctx, result, prices.get(d.id));
    }
    const ms = performance.now() - started;
    ctx.providerMs += ms;
    ctx.attempts.push({ d: d.id, o: 'ok', ms: Math.round(ms), startedAt });
    ctx.price = prices.get(d.id);
    return { response };
  } catch (thrown) {
    clearTimeout(timer);
    const err = asUpstreamError(thrown, controller?.signal);
    const verdict = judgeFailure(err);
    const ms = performance.now() - started;
    ctx.providerMs += ms;
    ctx.attempts.push({
      d: d.id,
      o: verdict.outcome,
      ms: Math.round(ms),
      ...(err.status !== undefined ? { st: err.status } : {}),
      why: err.message.slice(0, WHY_MAX),
      startedAt,
    });
    if (verdict.healthSignal) await benchIfAllowed(services.bench, clock, ctx, group, d, benched);
    return { error: err, stop: !verdict.tryElsewhere };
  }
}

/**
 * The usage and cost of a JSON answer: the provider's usage when it is a count; else an estimate (the prompt estimate
 * and the answer's text), whether the provider's usage was not a count or the provider sent none.
 */
function bookAnswerUsage(ctx: RequestContext, result: ProviderResult, price: PriceConfig | undefined): void {
  ctx.costEstimated = false;
  const usage = result.usage === undefined ? undefined : takeProviderUsage(ctx, result.usage);
  if (usage) {
    ctx.usage = usage;
    ctx.cost = costOf(usage, price);
    return;
  }
  const outputChars = choicesAnswerChars(result.body.choices, 'message');
  const promptTokens = ctx.estimate().promptTokens;
  if (result.usage === undefined) bookMissingUsage(ctx, promptTokens, outputChars, price);
  else bookEstimatedUsage(ctx, 'provider_usage_invalid', promptTokens, outputChars, price);
}

/** A provider failure as an UpstreamError; an attempt timer that fired is a timeout; anything else is a bug. */
function asUpstreamError(thrown: unknown, signal: AbortSignal | undefined): UpstreamError {
  if (thrown instanceof UpstreamError) return thrown;
  if (signal?.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError') {
    return new UpstreamError('timeout', 'provider did not answer in time', { cause: thrown });
  }
  throw thrown;
}
