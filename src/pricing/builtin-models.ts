// The built-in price table (prices.ts) as models of the public API (`isLangfuseManaged: true`), matched after a
// project's own models. Each pattern accepts the provider spellings normaliseModelId() strips: a path, a Bedrock
// region and vendor prefix, a dated snapshot, a Bedrock version, a Vertex `@` suffix; and OpenAI's four-digit
// snapshots (`gpt-3.5-turbo-0125`, `gpt-4-0613`), as Langfuse's default model table prices them. A snapshot priced
// apart (`gpt-3.5-turbo-1106`) has its own entry, matched first (model-matcher.ts).
import { BUILTIN_PRICES } from './prices.ts';
import type { ModelDefinition } from './model-definition.ts';

/** When the table was published; built-ins need a createdAt in the API shape. */
const BUILTIN_CREATED_AT = '2025-01-01T00:00:00.000Z';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const builtinPattern = (name: string) =>
  `(?i)^(.*/)?((us|eu|apac|global)\\.)?((anthropic|amazon|meta|mistral|cohere|ai21)\\.)?${escape(name)}(-(\\d{8}|\\d{4}-\\d{2}-\\d{2}|\\d{4}|latest))?(-v\\d+(:\\d+)?)?(@.*)?$`;

export const BUILTIN_MODELS: readonly ModelDefinition[] = Object.entries(BUILTIN_PRICES)
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([name, price]) => {
    const prices: Record<string, number> = { input: price.input_per_mtok / 1e6, output: price.output_per_mtok / 1e6 };
    // Providers bill reasoning tokens as output; usage details count them apart (`output_reasoning_tokens` from OpenAI
    // usage and OTel GenAI spans, `output_reasoning` as Langfuse also names it), so they cost what output costs.
    prices.output_reasoning_tokens = prices.output_reasoning = prices.output;
    // OpenAI reports cache reads as `input_cached_tokens`, Anthropic as `input_cache_read` (reference §4 usage keys).
    if (price.cached_input_per_mtok !== undefined)
      prices.input_cached_tokens = prices.input_cache_read = price.cached_input_per_mtok / 1e6;
    return {
      id: `builtin:${name}`,
      projectId: null,
      modelName: name,
      matchPattern: builtinPattern(name),
      startDate: null,
      unit: 'TOKENS',
      tokenizerId: null,
      tokenizerConfig: null,
      pricingTiers: [
        { id: `builtin:${name}:default`, name: 'Standard', isDefault: true, priority: 0, conditions: [], prices },
      ],
      createdAt: BUILTIN_CREATED_AT,
    };
  });
