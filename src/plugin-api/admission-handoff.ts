// rate-limit and budget admit together when budget is listed right after rate-limit: rate-limit hands its minute
// checks to budget, which admits them with its budget checks in one step of the counters (`counters.admit`) and
// settles both in one more (`counters.settle`). The handoff carries rate-limit's own refusals and settlement, so
// budget needs none of rate-limit's configuration and the client sees what rate-limit alone would have said.
import type { GatewayConfig } from '../platform/config/types.ts';
import type { GatewayError } from '../platform/errors/gateway-error.ts';
import type { MinuteCheck } from '../platform/store/counters/counters.ts';
import type { RequestContext } from './contract.ts';
import { stateSlot } from './state.ts';

export interface MinuteHandoff {
  /** Checked first in the joint admission: a rate limit refuses before any budget is read or charged. */
  readonly checks: readonly MinuteCheck[];
  /** rate-limit's refusal of the check at `failed`, with `msLeft` left in the minute. */
  refusal(failed: number, msLeft: number): GatewayError;
  /** Throws rate-limit's error for a counters call that failed (503 when the store cannot be reached). */
  unavailable(err: unknown): never;
  /** The token adjustments that settle the reservation, once the request has ended. */
  settlement(ctx: RequestContext): { key: string; delta: number }[];
}

/** Written by rate-limit and read by budget: the one slot two plugins share, for this handoff only. */
export const minuteHandoff = stateSlot<MinuteHandoff>('rate-limit.handoff');

/**
 * Whether rate-limit hands its checks to budget: each is listed once and budget comes right after rate-limit. Then
 * no other plugin's request hook runs between them, so none can see a request that is not counted yet, nor be
 * refused in place of a rate limit that would have refused first.
 */
export function admitsWithBudget(plugins: GatewayConfig['plugins']): boolean {
  const positions = (use: string) => plugins.flatMap((p, i) => (p.use === use ? [i] : []));
  const limits = positions('rate-limit');
  const budgets = positions('budget');
  return limits.length === 1 && budgets.length === 1 && budgets[0] === limits[0] + 1;
}
