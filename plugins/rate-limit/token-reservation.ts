// Tokens a request may use, reserved at admission (docs/plugins.md, The admission estimate) and settled to what was
// really used.
import type { RequestContext } from '../../src/plugin-api/index.ts';

/** The admission estimate: prompt plus output allowance (max_tokens or max_completion_tokens, else 4096). */
export function tokensToReserve(ctx: RequestContext): number {
  const { promptTokens, outputTokens } = ctx.estimate();
  return promptTokens + outputTokens;
}

/** Tokens to settle at: what the request used (`ctx.consumed()`); the reservation when that cannot be known. */
export function tokensUsed(ctx: RequestContext, reserved: number): number {
  return ctx.consumed()?.tokens ?? reserved;
}

/** Deltas that settle a reservation of `reserved` tokens on each of `keys`; none when it was used exactly. */
export function tokenSettlement(
  ctx: RequestContext,
  reserved: number,
  keys: readonly string[],
): { key: string; delta: number }[] {
  const delta = tokensUsed(ctx, reserved) - reserved;
  return delta === 0 ? [] : keys.map((key) => ({ key, delta }));
}
