// `RequestContext.consumed()`: the one rule for what a request used, which rate limits and budgets settle their
// admission reservations to.
import type { Consumption, RequestContext } from '../../plugin-api/contract.ts';

const NOTHING: Consumption = Object.freeze({ tokens: 0, usd: 0, estimated: false });

/**
 * The request's usage (the provider's, or the router's estimate when the provider sent none or none that counts) and
 * its cost; nothing for a cache hit or when no provider answered; undefined when a provider answered and there is
 * still no usage (a stream the drain stopped reading: what it used cannot be known, so reservations stand).
 */
export function consumedBy(ctx: RequestContext): Consumption | undefined {
  if (ctx.source === 'cache') return NOTHING;
  const usage = ctx.usage;
  if (usage) {
    return {
      tokens: usage.total_tokens || usage.prompt_tokens + (usage.completion_tokens ?? 0),
      usd: ctx.cost ?? 0,
      estimated: ctx.usageEstimated !== undefined,
    };
  }
  return ctx.attempts.some((a) => a.o === 'ok') ? undefined : NOTHING;
}
