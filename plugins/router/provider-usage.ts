// Books a provider's usage on the request: checked at the provider boundary (src/plugin-api/usage-check.ts), and
// estimated when there is no count to book (a stream cut after its first chunk, usage that is not a count, no usage
// at all). What is booked here is what the trace records and the budget and rate limits settle on.
import {
  checkedUsage,
  costOf,
  estimateCharTokens,
  type PriceConfig,
  type RequestContext,
  type Usage,
  type UsageEstimateReason,
} from '../../src/plugin-api/index.ts';

/**
 * The provider's usage checked: the usage to book, or undefined when it is not a count (the request then notes it,
 * for the trace and /metrics, and its usage is estimated).
 */
export function takeProviderUsage(ctx: RequestContext, raw: unknown): Usage | undefined {
  const checked = checkedUsage(raw);
  if ('invalid' in checked) {
    ctx.providerUsageFault = 'invalid';
    ctx.annotations['gateway.provider_usage_invalid'] = checked.invalid;
    return undefined;
  }
  if (checked.repaired) {
    ctx.providerUsageFault ??= 'repaired';
    ctx.annotations['gateway.provider_usage_repaired'] = checked.repaired;
  }
  return checked.usage;
}

/** Books an estimate for an answer the provider sent without usage (noted for the trace and /metrics). */
export function bookMissingUsage(
  ctx: RequestContext,
  promptTokens: number,
  outputChars: number,
  price: PriceConfig | undefined,
): void {
  ctx.providerUsageFault = 'missing';
  bookEstimatedUsage(ctx, 'provider_usage_missing', promptTokens, outputChars, price);
}

/**
 * Books usage the gateway estimated: `promptTokens` (the provider's count when it sent a sane one, else the admission
 * estimate) and the output counted from the answer's `outputChars`, priced at `price`.
 */
export function bookEstimatedUsage(
  ctx: RequestContext,
  reason: UsageEstimateReason,
  promptTokens: number,
  outputChars: number,
  price: PriceConfig | undefined,
): void {
  const completion = estimateCharTokens(outputChars);
  const usage: Usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completion,
    total_tokens: promptTokens + completion,
  };
  ctx.usage = usage;
  ctx.usageEstimated = reason;
  ctx.cost = costOf(usage, price);
  ctx.costEstimated = true;
}
