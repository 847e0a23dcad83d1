// The built-in price table (prices.ts) as models of the public API (`isLangfuseManaged: true`), matched after a
// project's own models. Each pattern accepts the provider spellings normaliseModelId() strips: a path, a Bedrock
// region and vendor prefix, a dated snapshot, a Bedrock version, a Vertex `@` suffix; and OpenAI's four-digit
// snapshots (`gpt-3.5-turbo-0125`, `gpt-4-0613`), as Langfuse's default model table prices them. A snapshot priced
// apart (`gpt-3.5-turbo-1106`) has its own entry, matched first (model-matcher.ts).
import type { PriceRates } from '../config/types.ts';
import { BUILTIN_PRICES, BUILTIN_PRICES_DATE } from './prices.ts';
import type { ModelDefinition, PricingTier } from '../store/repos/models.ts';

/** When the table was checked; built-ins need a createdAt in the API shape. */
const BUILTIN_CREATED_AT = `${BUILTIN_PRICES_DATE}T00:00:00.000Z`;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const builtinPattern = (name: string) =>
  `(?i)^(.*/)?((us|eu|apac|global)\\.)?((anthropic|amazon|meta|mistral|cohere|ai21)\\.)?${escape(name)}(-(\\d{8}|\\d{4}-\\d{2}-\\d{2}|\\d{4}|latest))?(-v\\d+(:\\d+)?)?(@.*)?$`;

/** USD per token of each usage-detail key at these rates: cost.ts's keys and other spellings of ingested usage. */
function usageKeyPrices(r: PriceRates): Record<string, number> {
  const perToken = (usdPerMtok: number) => usdPerMtok / 1e6;
  const input = perToken(r.input_per_mtok);
  const output = perToken(r.output_per_mtok);
  const prices: Record<string, number> = { input, output };
  // Providers bill reasoning tokens as output unless priced apart; usage details count them apart
  // (`output_reasoning_tokens` from OpenAI usage and OTel GenAI spans, `output_reasoning` as Langfuse also names it).
  prices.output_reasoning_tokens = prices.output_reasoning = perToken(r.reasoning_per_mtok ?? r.output_per_mtok);
  // OpenAI reports cache reads as `input_cached_tokens`, Anthropic as `input_cache_read` (usage-detail keys as Langfuse
  // names them).
  if (r.cached_input_per_mtok !== undefined)
    prices.input_cached_tokens = prices.input_cache_read = perToken(r.cached_input_per_mtok);
  if (r.cache_write_per_mtok !== undefined) prices.input_cache_creation = perToken(r.cache_write_per_mtok);
  if (r.cache_write_1h_per_mtok !== undefined) prices.input_cache_creation_1h = perToken(r.cache_write_1h_per_mtok);
  return prices;
}

export const BUILTIN_MODELS: readonly ModelDefinition[] = Object.entries(BUILTIN_PRICES)
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([name, price]) => {
    const tiers: PricingTier[] = [
      {
        id: `builtin:${name}:default`,
        name: 'Standard',
        isDefault: true,
        priority: 0,
        conditions: [],
        prices: usageKeyPrices(price),
      },
    ];
    const long = price.long_context;
    // The prompt is the sum of the input keys (exclusive buckets: uncached, cache reads, cache writes).
    if (long)
      tiers.push({
        id: `builtin:${name}:long-context`,
        name: 'Long context',
        isDefault: false,
        priority: 1,
        conditions: [{ usageDetailPattern: '^input', operator: 'gt', value: long.above_prompt_tokens }],
        prices: usageKeyPrices(long),
      });
    return {
      id: `builtin:${name}`,
      projectId: null,
      modelName: name,
      matchPattern: builtinPattern(name),
      startDate: null,
      unit: 'TOKENS',
      tokenizerId: null,
      tokenizerConfig: null,
      pricingTiers: tiers,
      createdAt: BUILTIN_CREATED_AT,
    };
  });
