// What one request adds to its group's shared routing figures (plugins/router/routing-board.ts): an attempt counted in
// flight for the strategies that read those counts, until the attempt fails or the response has ended; a served
// attempt's latency for `latency`. The writes are not awaited: a store that cannot be reached only loses a figure.
import {
  CountersUnavailableError,
  type DeploymentConfig,
  type ModelGroupConfig,
  type RequestContext,
  stateSlot,
} from '../../src/plugin-api/index.ts';
import type { RoutingBoard } from './routing-board.ts';
import { countsInFlight } from './strategy.ts';

interface InFlight {
  group: ModelGroupConfig;
  deploymentId: string;
  leaseId: string;
}
const inFlightSlot = stateSlot<InFlight>('router.in-flight');

export interface RoutingFigures {
  /** Before an attempt on `d`. */
  starting(ctx: RequestContext, group: ModelGroupConfig, d: DeploymentConfig): void;
  /** After a served attempt on `d` (the last attempt record). */
  served(ctx: RequestContext, group: ModelGroupConfig, d: DeploymentConfig): void;
  /** After a failed attempt, and when the request has ended (onLog): it is no longer in flight. */
  ended(ctx: RequestContext): void;
}

export function routingFigures(board: RoutingBoard): RoutingFigures {
  const quietly = (ctx: RequestContext, write: Promise<void>) =>
    write.catch((err: unknown) => {
      if (!(err instanceof CountersUnavailableError))
        ctx.log.error('router: routing figures not written', { requestId: ctx.id, error: (err as Error).stack });
    });
  return {
    starting(ctx, group, d) {
      if (!countsInFlight(group)) return;
      const held = { group, deploymentId: d.id, leaseId: `${ctx.id}:${ctx.attempts.length}` };
      ctx.state.set(inFlightSlot, held);
      quietly(ctx, board.start(group, d.id, held.leaseId));
    },
    served(ctx, group, d) {
      if (group.routing.strategy === 'latency') quietly(ctx, board.recordLatency(group, d.id, ctx.attempts.at(-1)!.ms));
    },
    ended(ctx) {
      const held = ctx.state.get(inFlightSlot);
      if (!held) return;
      ctx.state.set(inFlightSlot, undefined);
      quietly(ctx, board.end(held.group, held.deploymentId, held.leaseId));
    },
  };
}
