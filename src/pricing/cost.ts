import type { PriceConfig } from '../config/types.ts';
import type { Usage } from '../openai/wire-types.ts';

/** USD for a usage record; cached prompt tokens use the cached price when one is set. */
export function costOf(usage: Usage, price: PriceConfig | undefined): number {
  if (!price) return 0;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const cachedPrice = price.cached_input_per_mtok ?? price.input_per_mtok;
  const input = (usage.prompt_tokens - cached) * price.input_per_mtok + cached * cachedPrice;
  // Embeddings usage has no completion_tokens.
  return (input + (usage.completion_tokens ?? 0) * price.output_per_mtok) / 1_000_000;
}

export function costOfTokens(promptTokens: number, completionTokens: number, price: PriceConfig | undefined): number {
  if (!price) return 0;
  return (promptTokens * price.input_per_mtok + completionTokens * price.output_per_mtok) / 1_000_000;
}

/** Decimal USD without exponent notation, for the `x-svc-cost` header. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '0';
  // Trailing zeros and a bare point trimmed by hand: two regular expressions per response showed in the profile.
  const text = usd.toFixed(12);
  let end = text.length;
  while (text.charCodeAt(end - 1) === 48 /* 0 */) end--;
  if (text.charCodeAt(end - 1) === 46 /* . */) end--;
  return text.slice(0, end);
}
