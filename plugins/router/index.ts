// router: the terminal plugin. Chooses deployments by weight, retries, benches, falls back, and streams.
import type { DeploymentConfig, ModelGroupConfig } from '../../src/config/types.ts';
import { GatewayError } from '../../src/errors/gateway-error.ts';
import { definePlugin } from '../../src/pipeline/define-plugin.ts';
import type { BenchedDeployments } from '../../src/routing/bench-board.ts';
import { CountersUnavailableError } from '../../src/store/counters/counters.ts';
import type { ChatChunk, GatewayResponse, RequestContext } from '../../src/pipeline/types.ts';
import { costOf, costOfTokens } from '../../src/pricing/cost.ts';
import { estimateChatPromptTokens, outputAllowance } from '../../src/pricing/token-estimate.ts';
import type { ProviderAdapter, ProviderResult } from '../../src/providers/types.ts';
import { UpstreamError } from '../../src/providers/upstream-error.ts';
import { deploymentPrice } from '../../src/pricing/prices.ts';
import { groupChain } from '../../src/routing/model-groups.ts';
import { listModels } from './models-list.ts';
import { judgeFailure } from './outcome.ts';
import { weightedChoice } from './weighted-choice.ts';
import schema from './schema.json' with { type: 'json' };

interface RouterConfig {
  backoff_base_ms: number;
  disconnect_drain_ms: number;
  disconnect_drain_chunks: number;
}

type AttemptResult = { response: GatewayResponse } | { error: UpstreamError; stop: boolean };

const WHY_MAX = 200;

export default definePlugin<RouterConfig>({
  apiVersion: 1,
  name: 'router',
  configSchema: schema,
  setup(config, services) {
    const { clock, bench, providers, modelGroups } = services;
    const prices = new Map<string, ReturnType<typeof deploymentPrice>>();
    for (const g of services.config.model_groups) for (const d of g.deployments) prices.set(d.id, deploymentPrice(d));

    const offersEmbeddings = (d: DeploymentConfig, adapter: ProviderAdapter) =>
      adapter.supportsEmbeddings && d.embeddings !== false;
    const serves = (ctx: RequestContext, d: DeploymentConfig, adapter: ProviderAdapter) =>
      ctx.route !== 'embeddings' || offersEmbeddings(d, adapter);

    /**
     * The group's bench state for this request. While the counters store cannot be reached the request routes as if
     * nothing were benched (its own failures still move it on at once), as the cache treats a store it cannot reach.
     */
    const benchedIn = (
      ctx: RequestContext,
      group: ModelGroupConfig,
    ): BenchedDeployments | Promise<BenchedDeployments> => {
      const unreadable = (err: unknown): BenchedDeployments => {
        if (!(err instanceof CountersUnavailableError)) throw err;
        ctx.annotations['gateway.bench_error'] = err.message;
        return new Map();
      };
      const read = bench.benched(group);
      return read instanceof Promise ? read.catch(unreadable) : read;
    };

    /** Benching the only deployment left in a group without fallback would just turn provider errors into 503s. */
    const benchIfAllowed = async (
      ctx: RequestContext,
      group: ModelGroupConfig,
      d: DeploymentConfig,
      benched: BenchedDeployments,
    ) => {
      if (group.routing.bench_ms === 0) return;
      if (group.fallback === undefined) {
        const othersUp = group.deployments.some((o) => o.id !== d.id && o.weight > 0 && !benched.has(o.id));
        if (!othersUp) return;
      }
      benched.set(d.id, clock.now() + group.routing.bench_ms);
      // Written before the request goes on, so every replica skips the deployment from the next request on.
      await bench.bench(group, d.id, group.routing.bench_ms).catch((err: unknown) => {
        if (!(err instanceof CountersUnavailableError)) throw err;
        ctx.annotations['gateway.bench_error'] = err.message;
        ctx.log.warn('router: bench state not written; the counters store is unavailable', {
          requestId: ctx.id,
          deployment: d.id,
          error: err.message,
        });
      });
    };

    async function attempt(
      ctx: RequestContext,
      group: ModelGroupConfig,
      benched: BenchedDeployments,
      d: DeploymentConfig,
      adapter: ProviderAdapter,
    ): Promise<AttemptResult> {
      const started = performance.now();
      const startedAt = clock.now();
      const timeoutMs = d.timeout_ms ?? group.routing.timeout_ms;
      // Non-streamed attempts are bounded by the transport's header and body timeouts alone; a stream also needs an
      // abort handle (idle gaps between chunks, the drain deadline after a client disconnect).
      const controller = ctx.stream ? new AbortController() : undefined;
      const timer =
        controller &&
        setTimeout(() => controller.abort(new DOMException('attempt timed out', 'TimeoutError')), timeoutMs);
      const call = { deployment: d, body: ctx.body!, signal: controller?.signal, timeoutMs };
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
          response = { kind: 'stream', status: 200, events: relay(ctx, first.value, iterator, controller, timer) };
          ctx.cost = costOfTokens(
            estimateChatPromptTokens(ctx.body!.messages),
            outputAllowance(ctx.body!),
            prices.get(d.id),
          );
          ctx.costEstimated = true;
        } else {
          const result: ProviderResult =
            ctx.route === 'embeddings' ? await adapter.embeddings(call) : await adapter.chat(call);
          response = { kind: 'json', status: 200, body: result.body, raw: result.raw };
          if (result.usage) ctx.usage = result.usage;
          ctx.cost = result.usage ? costOf(result.usage, prices.get(d.id)) : 0;
          ctx.costEstimated = false;
        }
        ctx.attempts.push({ d: d.id, o: 'ok', ms: Math.round(performance.now() - started), startedAt });
        ctx.price = prices.get(d.id);
        return { response };
      } catch (thrown) {
        clearTimeout(timer);
        const err = asUpstreamError(thrown, controller?.signal);
        const verdict = judgeFailure(err);
        ctx.attempts.push({
          d: d.id,
          o: verdict.outcome,
          ms: Math.round(performance.now() - started),
          ...(err.status !== undefined ? { st: err.status } : {}),
          why: err.message.slice(0, WHY_MAX),
          startedAt,
        });
        if (verdict.healthSignal) await benchIfAllowed(ctx, group, d, benched);
        return { error: err, stop: !verdict.tryElsewhere };
      }
    }

    /** Passes chunks on, records usage, strips the usage chunk the client did not ask for, drains after a disconnect. */
    async function* relay(
      ctx: RequestContext,
      first: ChatChunk,
      iterator: AsyncIterator<ChatChunk>,
      controller: AbortController,
      idleTimer: NodeJS.Timeout,
    ): AsyncGenerator<ChatChunk> {
      let drainTimer: NodeJS.Timeout | undefined;
      let drained = 0;
      const onAbort = () => {
        drainTimer = setTimeout(
          () => controller.abort(new Error('client disconnected; drain time is over')),
          config.disconnect_drain_ms,
        );
      };
      if (ctx.signal.aborted) onAbort();
      else ctx.signal.addEventListener('abort', onAbort, { once: true });
      try {
        let chunk: ChatChunk | undefined = first;
        while (chunk !== undefined) {
          if (chunk.usage) ctx.usage = chunk.usage;
          let pass = true;
          if (!ctx.clientWantsUsage && 'usage' in chunk) {
            if (chunk.usage && (!Array.isArray(chunk.choices) || chunk.choices.length === 0)) pass = false;
            else delete chunk.usage;
          }
          if (pass) yield chunk;
          if (ctx.clientAborted && ++drained > config.disconnect_drain_chunks) break;
          const next = await iterator.next();
          idleTimer.refresh();
          chunk = next.done ? undefined : next.value;
        }
        if (ctx.usage) ctx.cost = costOf(ctx.usage, ctx.price);
      } finally {
        ctx.signal.removeEventListener('abort', onAbort);
        clearTimeout(drainTimer);
        clearTimeout(idleTimer);
        await iterator.return?.();
      }
    }

    return {
      async handle(ctx) {
        if (ctx.route === 'models') return { kind: 'json', status: 200, body: listModels(ctx.principal, modelGroups) };
        const group = ctx.group!;
        if (
          ctx.route === 'embeddings' &&
          !group.deployments.some((d) => offersEmbeddings(d, providers.forDeployment(d)))
        ) {
          throw new GatewayError(
            'embeddings_not_supported',
            `No deployment in model group '${group.name}' offers an embeddings API.`,
          );
        }
        let lastError: UpstreamError | undefined;
        for (const g of groupChain(modelGroups, group)) {
          const tried = new Set<string>();
          let backoffStep = 0;
          // Read once per group (in-process: synchronously); this request's own benches are added as they happen.
          const read = benchedIn(ctx, g);
          const benchedNow = read instanceof Promise ? await read : read;
          for (let n = 0; n <= g.routing.retries; n++) {
            if (ctx.clientAborted) throw new Error('client disconnected');
            const eligible: DeploymentConfig[] = [];
            const benched: DeploymentConfig[] = [];
            for (const d of g.deployments) {
              const adapter = providers.forDeployment(d);
              if (d.weight <= 0 || !serves(ctx, d, adapter) || adapter.unavailableReason(d) !== undefined) continue;
              if (benchedNow.has(d.id)) benched.push(d);
              else eligible.push(d);
            }
            if (eligible.length === 0) {
              if (n === 0) for (const d of benched) ctx.attempts.push({ d: d.id, o: 'benched', ms: 0 });
              break;
            }
            let candidates = eligible.filter((d) => !tried.has(d.id));
            if (candidates.length === 0) {
              await clock.sleep(
                backoffDelay(backoffStep++, lastError?.retryAfterMs, g.routing.max_backoff_ms),
                ctx.signal,
              );
              candidates = eligible;
            }
            const d = weightedChoice(candidates);
            tried.add(d.id);
            // The group of the last attempt: a fallback group with nothing eligible was not used.
            ctx.servedGroup = g.name;
            const result = await attempt(ctx, g, benchedNow, d, providers.forDeployment(d));
            if ('response' in result) return result.response;
            lastError = result.error;
            if (result.stop) throw lastError;
          }
        }
        if (!lastError) {
          ctx.servedGroup = group.name;
          throw new GatewayError(
            'no_deployment_available',
            `Model group '${group.name}' has no eligible deployment right now.`,
          );
        }
        ctx.annotations['gateway.refusal'] = 'all_deployments_failed';
        throw lastError;
      },
    };

    function backoffDelay(step: number, hintMs: number | undefined, capMs: number): number {
      const exponential = config.backoff_base_ms * 2 ** step;
      const jittered = exponential / 2 + Math.random() * (exponential / 2);
      return Math.min(capMs, Math.max(jittered, hintMs ?? 0));
    }
  },
});

function asUpstreamError(thrown: unknown, signal: AbortSignal | undefined): UpstreamError {
  if (thrown instanceof UpstreamError) return thrown;
  if (signal?.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError') {
    return new UpstreamError('timeout', 'provider did not answer in time', { cause: thrown });
  }
  throw thrown;
}
