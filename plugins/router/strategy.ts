// A model group's routing strategy (`routing.strategy`, docs/configuration.md "Routing strategies"): what it reads
// from the counters store once per group and request, and which candidate it picks for an attempt, and why. Which
// deployments are candidates (not benched, not unavailable, not tried yet) is decided before, the same for every
// strategy, so health, bench and retries override any preference.
import {
  CountersUnavailableError,
  type DeploymentConfig,
  type ModelGroupConfig,
  type PriceConfig,
  type RequestContext,
} from '../../src/plugin-api/index.ts';
import type { DeploymentFigures, RoutingBoard } from './routing-board.ts';
import { cheapest } from './cheapest.ts';
import { leastBusy } from './least-busy.ts';
import { lowestLatency } from './lowest-latency.ts';
import { affinityChoice, prefixHash } from './prefix-affinity.ts';
import { weightedChoice } from './weighted-choice.ts';

/** The shared figures a strategy reads: requests in flight or latencies; undefined when the store cannot be read. */
export type StrategyFigures = DeploymentFigures | undefined;

const NONE: StrategyFigures = undefined;

/** True when the strategy counts each deployment's requests in flight. */
export const countsInFlight = (group: ModelGroupConfig) =>
  group.routing.strategy === 'least-busy' || group.routing.strategy === 'prefix-affinity';

/** The group's figures for its strategy; in-process answered synchronously, so the hot path pays no promise. */
export function readFigures(
  board: RoutingBoard,
  ctx: RequestContext,
  group: ModelGroupConfig,
): StrategyFigures | Promise<StrategyFigures> {
  const strategy = group.routing.strategy;
  if (strategy === 'weighted' || strategy === 'cost') return NONE;
  const read = strategy === 'latency' ? board.latencies(group) : board.inFlight(group);
  if (!(read instanceof Promise)) return read;
  return read.catch((err: unknown) => {
    if (!(err instanceof CountersUnavailableError)) throw err;
    ctx.annotations['gateway.routing_error'] = err.message;
    return NONE;
  });
}

interface Choice {
  d: DeploymentConfig;
  /** Why this deployment, for the trace's `gateway.routing.reason`. */
  reason: string;
}

export interface ChoiceInputs {
  prices: ReadonlyMap<string, PriceConfig | undefined>;
  /** The request's prefix hash (prefix-affinity), worked out on first use. */
  prefix(): number | undefined;
}

export function choiceInputs(ctx: RequestContext, prices: ChoiceInputs['prices']): ChoiceInputs {
  let prefix: { hash: number | undefined } | undefined;
  return { prices, prefix: () => (prefix ??= { hash: prefixHash(ctx.body) }).hash };
}

/** The candidate the group's strategy picks; the strategy and the reason go on the trace. */
export function choose(
  ctx: RequestContext,
  group: ModelGroupConfig,
  candidates: readonly DeploymentConfig[],
  figures: StrategyFigures,
  inputs: ChoiceInputs,
): DeploymentConfig {
  const { d, reason } = pick(ctx, group, candidates, figures, inputs);
  ctx.annotations['gateway.routing.strategy'] = group.routing.strategy;
  ctx.annotations['gateway.routing.reason'] = reason;
  return d;
}

function pick(
  ctx: RequestContext,
  group: ModelGroupConfig,
  candidates: readonly DeploymentConfig[],
  figures: StrategyFigures,
  inputs: ChoiceInputs,
): Choice {
  switch (group.routing.strategy) {
    case 'weighted':
      return { d: weightedChoice(candidates), reason: 'weight' };
    case 'cost':
      return cheapest(candidates, inputs.prices, ctx.estimate());
    case 'least-busy':
      if (!figures) return { d: weightedChoice(candidates), reason: 'figures_unavailable' };
      return { d: leastBusy(candidates, figures), reason: 'fewest_in_flight' };
    case 'latency':
      if (!figures) return { d: weightedChoice(candidates), reason: 'figures_unavailable' };
      return lowestLatency(candidates, figures);
    case 'prefix-affinity': {
      const hash = inputs.prefix();
      if (hash === undefined) return { d: weightedChoice(candidates), reason: 'no_prefix' };
      return affinityChoice(group, candidates, hash, figures ?? new Map());
    }
  }
}
