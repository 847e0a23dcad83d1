// Built-in prices (USD per million tokens) for common OpenAI, Anthropic, Gemini and Bedrock models: the providers'
// list prices, checked on BUILTIN_PRICES_DATE. A deployment's own `price` in gateway.yaml always wins; keep it set
// for anything contractual. Components a model's entry leaves out cost what their base rate costs (cost.ts).
import type { DeploymentConfig, PriceConfig, PriceRates } from '../config/types.ts';

/** Raised whenever a price in the table changes; recorded on traces priced from the table. */
export const BUILTIN_PRICES_VERSION = '2026-11-26';
/** The day the table was last checked against the providers' published list prices. */
export const BUILTIN_PRICES_DATE = '2026-11-26';

const rates = (input: number, output: number, cached?: number): PriceRates => ({
  input_per_mtok: input,
  output_per_mtok: output,
  ...(cached === undefined ? {} : { cached_input_per_mtok: cached }),
});

const p = (input: number, output: number, cached?: number): PriceConfig => rates(input, output, cached);

/** A multiple of a price, rounded to a millionth of a dollar (0.1 × 3 is 0.30000000000000004 in floating point). */
const times = (usd: number, factor: number) => Math.round(usd * factor * 1e6) / 1e6;

/** Anthropic's cache prices from the base input price: reads 0.1×, 5-minute writes 1.25×, 1-hour writes 2×. */
function claudeRates(input: number, output: number): PriceRates {
  return {
    ...rates(input, output, times(input, 0.1)),
    cache_write_per_mtok: times(input, 1.25),
    cache_write_1h_per_mtok: times(input, 2),
  };
}

/** A Claude model; `long` for the models with 1M-token context, billed at higher rates above 200k prompt tokens. */
const claude = (input: number, output: number, long?: [number, number]): PriceConfig => ({
  ...claudeRates(input, output),
  ...(long ? { long_context: { above_prompt_tokens: 200_000, ...claudeRates(long[0], long[1]) } } : {}),
});

/** A Gemini model with a long-context tier: [input, output, cached?] above `above` prompt tokens. */
const gemini = (base: PriceConfig, above: number, long: [number, number, number?]): PriceConfig => ({
  ...base,
  long_context: { above_prompt_tokens: above, ...rates(...long) },
});

export const BUILTIN_PRICES: Readonly<Record<string, PriceConfig>> = {
  // OpenAI (reasoning tokens are output tokens; cache writes cost nothing extra)
  'gpt-5': p(1.25, 10, 0.125),
  'gpt-5-mini': p(0.25, 2, 0.025),
  'gpt-5-nano': p(0.05, 0.4, 0.005),
  'gpt-4.1': p(2, 8, 0.5),
  'gpt-4.1-mini': p(0.4, 1.6, 0.1),
  'gpt-4.1-nano': p(0.1, 0.4, 0.025),
  'gpt-4o': p(2.5, 10, 1.25),
  'gpt-4o-mini': p(0.15, 0.6, 0.075),
  'gpt-4-turbo': p(10, 30),
  'gpt-4-1106-preview': p(10, 30),
  'gpt-4-0125-preview': p(10, 30),
  'gpt-4': p(30, 60),
  'gpt-4-32k': p(60, 120),
  'gpt-3.5-turbo': p(0.5, 1.5),
  // Older snapshots priced apart from gpt-3.5-turbo (the others, such as -0125, cost what it costs).
  'gpt-3.5-turbo-1106': p(1, 2),
  'gpt-3.5-turbo-0613': p(1.5, 2),
  'gpt-3.5-turbo-0301': p(2, 2),
  o1: p(15, 60, 7.5),
  o3: p(2, 8, 0.5),
  'o3-mini': p(1.1, 4.4, 0.55),
  'o4-mini': p(1.1, 4.4, 0.275),
  'text-embedding-3-small': p(0.02, 0),
  'text-embedding-3-large': p(0.13, 0),
  'text-embedding-ada-002': p(0.1, 0),
  // Anthropic (also the Bedrock and Vertex ids of these models, after normalisation)
  'claude-opus-4-5': claude(5, 25),
  'claude-opus-4-1': claude(15, 75),
  'claude-opus-4': claude(15, 75),
  'claude-sonnet-4-5': claude(3, 15, [6, 22.5]),
  'claude-sonnet-4': claude(3, 15, [6, 22.5]),
  'claude-3-7-sonnet': claude(3, 15),
  'claude-3-5-sonnet': claude(3, 15),
  'claude-haiku-4-5': claude(1, 5),
  'claude-3-5-haiku': claude(0.8, 4),
  'claude-3-opus': claude(15, 75),
  // Claude 3 Haiku's cache prices are not the usual multiples.
  'claude-3-haiku': { ...p(0.25, 1.25, 0.03), cache_write_per_mtok: 0.3, cache_write_1h_per_mtok: 0.5 },
  // Google Gemini (cache reads at the context-caching price; storage per hour is billed apart and not counted)
  'gemini-2.5-pro': gemini(p(1.25, 10, 0.125), 200_000, [2.5, 15, 0.25]),
  'gemini-2.5-flash': p(0.3, 2.5, 0.03),
  'gemini-2.5-flash-lite': p(0.1, 0.4, 0.01),
  'gemini-2.0-flash': p(0.1, 0.4, 0.025),
  'gemini-2.0-flash-lite': p(0.075, 0.3),
  'gemini-1.5-pro': gemini(p(1.25, 5), 128_000, [2.5, 10]),
  'gemini-1.5-flash': gemini(p(0.075, 0.3), 128_000, [0.15, 0.6]),
  // Amazon Bedrock's own and hosted models
  'nova-pro': p(0.8, 3.2, 0.2),
  'nova-lite': p(0.06, 0.24, 0.015),
  'nova-micro': p(0.035, 0.14, 0.00875),
  'llama3-1-70b-instruct': p(0.72, 0.72),
  'llama3-1-8b-instruct': p(0.22, 0.22),
  'mistral-large-2407': p(2, 6),
};

/**
 * The table's name for a provider model id: Bedrock region and vendor prefixes (`us.anthropic.`), a path
 * (`openai/`, `publishers/google/models/`), Bedrock version suffixes (`-v1:0`), Vertex `@date` and dated
 * snapshots (`-20240620`, `-2024-07-18`, `-latest`) removed.
 */
export function normaliseModelId(model: string): string {
  return model
    .toLowerCase()
    .replace(/^.*\//, '')
    .replace(/^(us|eu|apac|global)\./, '')
    .replace(/^(anthropic|amazon|meta|mistral|cohere|ai21)\./, '')
    .replace(/-v\d+(:\d+)?$/, '')
    .replace(/@.*$/, '')
    .replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, '');
}

const priceOf = (id: string | undefined) =>
  id !== undefined && Object.hasOwn(BUILTIN_PRICES, id) ? BUILTIN_PRICES[id] : undefined;

/** The table's price for a model id; an OpenAI four-digit snapshot (`gpt-4-0613`) without an entry of its own costs what its model costs. */
export function builtinPrice(model: string | undefined): PriceConfig | undefined {
  const id = model === undefined ? undefined : normaliseModelId(model);
  return priceOf(id) ?? priceOf(id === undefined ? undefined : /^(.+)-\d{4}$/.exec(id)?.[1]);
}

/** The deployment's configured price, else the built-in one for its model, else none (unpriced). */
export function deploymentPrice(d: DeploymentConfig): PriceConfig | undefined {
  return d.price ?? builtinPrice(d.model);
}
