// What a provider answer costs, by price component: uncached input, cache reads, 5-minute and 1-hour cache writes,
// output and reasoning, at the long-context rates when the prompt is above their threshold. The component keys are
// Langfuse's usage-detail keys (exclusive buckets that add up to the total), so gateway traces read like ingested ones.
import type { PriceConfig, PriceRates } from '../config/types.ts';
import type { Usage } from '../openai/wire-types.ts';

/** Tokens per component; the counts add up to total_tokens. */
export interface UsageComponents {
  /** Input neither read from nor written to the provider's prompt cache. */
  input: number;
  cacheRead: number;
  /** 5-minute writes, and writes reported without a duration. */
  cacheWrite5m: number;
  cacheWrite1h: number;
  /** Output that is not reasoning. */
  output: number;
  reasoning: number;
}

interface Component {
  /** The usage-detail and cost-detail key. */
  key: string;
  tokens: (c: UsageComponents) => number;
  /** USD per million tokens. */
  rate: (r: PriceRates) => number;
}

// Each component's rate, with the fallback to its base rate.
const inputRate = (r: PriceRates) => r.input_per_mtok;
const cacheReadRate = (r: PriceRates) => r.cached_input_per_mtok ?? r.input_per_mtok;
const cacheWriteRate = (r: PriceRates) => r.cache_write_per_mtok ?? r.input_per_mtok;
const cacheWrite1hRate = (r: PriceRates) => r.cache_write_1h_per_mtok ?? cacheWriteRate(r);
const outputRate = (r: PriceRates) => r.output_per_mtok;
const reasoningRate = (r: PriceRates) => r.reasoning_per_mtok ?? r.output_per_mtok;

/** In the order costOf sums them, so costDetailsOf's total is the same number. */
const COMPONENTS: readonly Component[] = [
  { key: 'input', tokens: (c) => c.input, rate: inputRate },
  { key: 'input_cached_tokens', tokens: (c) => c.cacheRead, rate: cacheReadRate },
  { key: 'input_cache_creation', tokens: (c) => c.cacheWrite5m, rate: cacheWriteRate },
  { key: 'input_cache_creation_1h', tokens: (c) => c.cacheWrite1h, rate: cacheWrite1hRate },
  { key: 'output', tokens: (c) => c.output, rate: outputRate },
  { key: 'output_reasoning_tokens', tokens: (c) => c.reasoning, rate: reasoningRate },
];

const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0);

/**
 * A usage record split into components. Prompt tokens include cache reads and writes, completion tokens include
 * reasoning (OpenAI's convention, and the usage rule of translated providers); details larger than their total are
 * capped at it, so no component is negative.
 */
export function usageComponents(usage: Usage): UsageComponents {
  const prompt = count(usage.prompt_tokens);
  const completion = count(usage.completion_tokens);
  const details = usage.prompt_tokens_details;
  const cacheRead = Math.min(count(details?.cached_tokens), prompt);
  const writes = Math.min(count(details?.cache_creation_tokens), prompt - cacheRead);
  const cacheWrite1h = Math.min(count(details?.cache_creation_token_details?.ephemeral_1h_input_tokens), writes);
  const reasoning = Math.min(count(usage.completion_tokens_details?.reasoning_tokens), completion);
  return {
    input: prompt - cacheRead - writes,
    cacheRead,
    cacheWrite5m: writes - cacheWrite1h,
    cacheWrite1h,
    output: completion - reasoning,
    reasoning,
  };
}

/** The rates that apply to a request with this many prompt tokens: the long-context ones above their threshold. */
function ratesFor(price: PriceConfig, promptTokens: number): PriceRates {
  const long = price.long_context;
  return long !== undefined && promptTokens > long.above_prompt_tokens ? long : price;
}

/** True when the long-context rates price this usage. */
export const isLongContext = (usage: Usage, price: PriceConfig): boolean =>
  ratesFor(price, usage.prompt_tokens) !== price;

/**
 * USD for a usage record: the sum of its components at their rates (0 when unpriced). Written out rather than looped
 * over COMPONENTS: it runs on every answer, and the loop cost ten times as much.
 */
export function costOf(usage: Usage, price: PriceConfig | undefined): number {
  if (!price) return 0;
  const t = usageComponents(usage);
  const r = ratesFor(price, usage.prompt_tokens);
  return (
    (t.input * inputRate(r) +
      t.cacheRead * cacheReadRate(r) +
      t.cacheWrite5m * cacheWriteRate(r) +
      t.cacheWrite1h * cacheWrite1hRate(r) +
      t.output * outputRate(r) +
      t.reasoning * reasoningRate(r)) /
    1_000_000
  );
}

/**
 * USD per component for the trace's cost_details, with `total` (equal to costOf). `input` and `output` are always
 * there; the other components when they have tokens.
 */
export function costDetailsOf(usage: Usage, price: PriceConfig): Record<string, number> {
  const tokens = usageComponents(usage);
  const rates = ratesFor(price, usage.prompt_tokens);
  const details: Record<string, number> = {};
  let micro = 0;
  for (const c of COMPONENTS) {
    const n = c.tokens(tokens);
    const product = n * c.rate(rates);
    micro += product;
    if (n > 0 || c.key === 'input' || c.key === 'output') details[c.key] = product / 1_000_000;
  }
  details.total = micro / 1_000_000;
  return details;
}

/** Tokens per component for the trace's usage_details, with `total`; same keys as costDetailsOf. */
export function usageDetailsOf(usage: Usage): Record<string, number> {
  const tokens = usageComponents(usage);
  const details: Record<string, number> = {};
  for (const c of COMPONENTS) {
    const n = c.tokens(tokens);
    if (n > 0 || c.key === 'input' || c.key === 'output') details[c.key] = n;
  }
  details.total = count(usage.total_tokens);
  return details;
}

/**
 * The price of a request of `promptTokens` in and `completionTokens` out at a deployment's price (plain input and
 * output rates, long-context ones above their threshold): admission estimates, budget reservations, cost routing.
 */
export function costOfTokens(promptTokens: number, completionTokens: number, price: PriceConfig | undefined): number {
  if (!price) return 0;
  const rates = ratesFor(price, promptTokens);
  return (promptTokens * rates.input_per_mtok + completionTokens * rates.output_per_mtok) / 1_000_000;
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
