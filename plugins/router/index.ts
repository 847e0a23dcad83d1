// router: the terminal plugin. Chooses deployments by the group's strategy, retries, benches, falls back, and
// streams. One attempt (and the stream relay behind it) is attempt.ts; the strategies are strategy.ts; this file
// decides which deployments may be tried next.
import {
  type BenchedDeployments,
  definePlugin,
  type DeploymentConfig,
  deploymentPrice,
  GatewayError,
  type ModelGroupConfig,
  type ProviderAdapter,
  type ProviderRegistry,
  type RequestContext,
  type UpstreamError,
} from '../../src/plugin-api/index.ts';
import { routingBoard } from './routing-board.ts';
import { attempt, type AttemptServices } from './attempt.ts';
import { backoffDelay, waitOutBackoff } from './backoff.ts';
import { benchedIn } from './bench.ts';
import { listModels } from './models-list.ts';
import { routingFigures } from './routing-figures.ts';
import { choiceInputs, choose, readFigures } from './strategy.ts';
import schema from './schema.json' with { type: 'json' };

interface RouterConfig {
  backoff_base_ms: number;
  disconnect_drain_ms: number;
  disconnect_drain_chunks: number;
}

const offersEmbeddings = (d: DeploymentConfig, adapter: ProviderAdapter) =>
  adapter.supportsEmbeddings && d.embeddings !== false;
const serves = (ctx: RequestContext, d: DeploymentConfig, adapter: ProviderAdapter) =>
  ctx.route !== 'embeddings' || offersEmbeddings(d, adapter);

/** The group's deployments that may take this request now, and those that would but are benched. */
function eligibleIn(
  ctx: RequestContext,
  g: ModelGroupConfig,
  providers: ProviderRegistry,
  benchedNow: BenchedDeployments,
) {
  const eligible: DeploymentConfig[] = [];
  const benched: DeploymentConfig[] = [];
  for (const d of g.deployments) {
    const adapter = providers.forDeployment(d);
    if (d.weight <= 0 || !serves(ctx, d, adapter) || adapter.unavailableReason(d) !== undefined) continue;
    if (benchedNow.has(d.id)) benched.push(d);
    else eligible.push(d);
  }
  return { eligible, benched };
}

export default definePlugin<RouterConfig>({
  apiVersion: 1,
  name: 'router',
  configSchema: schema,
  setup(config, services) {
    const { clock, bench, providers, modelGroups } = services;
    const prices = new Map<string, ReturnType<typeof deploymentPrice>>();
    for (const g of services.config.model_groups) for (const d of g.deployments) prices.set(d.id, deploymentPrice(d));
    const attemptServices: AttemptServices = {
      clock,
      bench,
      prices,
      drain: { ms: config.disconnect_drain_ms, chunks: config.disconnect_drain_chunks },
    };
    const board = routingBoard(services.counters);
    const figuresOf = routingFigures(board);

    return {
      async handle(ctx) {
        if (ctx.route === 'models') {
          return { kind: 'json', status: 200, source: 'gateway', body: listModels(ctx.principal, modelGroups) };
        }
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
        const inputs = choiceInputs(ctx, prices);
        for (const g of modelGroups.chain(group)) {
          const tried = new Set<string>();
          let backoffStep = 0;
          // Read once per group (in-process: synchronously); this request's own benches are added as they happen.
          const read = benchedIn(bench, ctx, g);
          const benchedNow = read instanceof Promise ? await read : read;
          const figuresRead = readFigures(board, ctx, g);
          const figures = figuresRead instanceof Promise ? await figuresRead : figuresRead;
          for (let n = 0; n <= g.routing.retries; n++) {
            if (ctx.clientAborted) throw new Error('client disconnected');
            const { eligible, benched } = eligibleIn(ctx, g, providers, benchedNow);
            if (eligible.length === 0) {
              if (n === 0) for (const d of benched) ctx.attempts.push({ d: d.id, o: 'benched', ms: 0 });
              break;
            }
            let candidates = eligible.filter((d) => !tried.has(d.id));
            if (candidates.length === 0) {
              const delay = backoffDelay(
                backoffStep++,
                config.backoff_base_ms,
                lastError?.retryAfterMs,
                g.routing.max_backoff_ms,
              );
              await waitOutBackoff(clock, delay, ctx);
              candidates = eligible;
            }
            const d = choose(ctx, g, candidates, figures, inputs);
            tried.add(d.id);
            // The group of the last attempt: a fallback group with nothing eligible was not used.
            ctx.servedGroup = g.name;
            figuresOf.starting(ctx, g, d);
            const result = await attempt(attemptServices, ctx, g, benchedNow, d, providers.forDeployment(d));
            if ('response' in result) {
              figuresOf.served(ctx, g, d);
              return result.response;
            }
            figuresOf.ended(ctx);
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
      onLog(ctx) {
        figuresOf.ended(ctx);
      },
    };
  },
});
