// Tokens a request may use, reserved at admission (spec part 4B rule 5) and settled to what was really used.
import type { RequestContext } from '../../src/plugin-api/index.ts';

/** The admission estimate: prompt plus output allowance (max_tokens or max_completion_tokens, else 4096). */
export function tokensToReserve(ctx: RequestContext): number {
  const { promptTokens, outputTokens } = ctx.estimate();
  return promptTokens + outputTokens;
}

/**
 * Tokens to settle at: the request's usage (the provider's, or the router's estimate when the provider sent none or
 * none that counts); a cache hit used no provider tokens; a request no provider answered used none. A provider answer
 * still without usage (a stream the drain stopped reading) keeps the reservation.
 */
export function tokensUsed(ctx: RequestContext, reserved: number): number {
  if (ctx.source === 'cache') return 0;
  if (ctx.usage) return ctx.usage.total_tokens || ctx.usage.prompt_tokens + (ctx.usage.completion_tokens ?? 0);
  return ctx.attempts.some((a) => a.o === 'ok') ? reserved : 0;
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
