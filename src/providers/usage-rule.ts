// One usage rule for every translated provider (issue 5; docs/decisions.md "Usage of translated providers"):
// prompt_tokens counts cache reads and cache writes, prompt_tokens_details.cached_tokens is the cache reads,
// prompt_tokens_details.cache_creation_tokens the cache writes (when there were any, split by duration when the
// provider says), completion_tokens includes reasoning tokens, total_tokens is the sum.
import type { Usage } from '../openai/wire-types.ts';

export interface ProviderTokenCounts {
  /** Input tokens that were neither read from nor written to the provider's prompt cache. */
  input: number;
  output: number;
  cacheRead?: number;
  /** All cache writes, whatever their duration. */
  cacheWrite?: number;
  /** The cache writes by duration, when the provider reports them apart. */
  cacheWriteSplit?: { ephemeral5m: number; ephemeral1h: number };
  /** Reasoning tokens when the provider counts them apart from `output`. */
  reasoning?: number;
}

type PromptDetails = NonNullable<Usage['prompt_tokens_details']>;

/**
 * The provider's usage object when it carries one of its `counts` as a number; else undefined: the provider sent no
 * usage, and the gateway estimates it (docs/api.md "Provider usage") rather than booking zeros.
 */
export function reportedUsage(usage: unknown, counts: readonly string[]): Record<string, unknown> | undefined {
  if (typeof usage !== 'object' || usage === null || Array.isArray(usage)) return undefined;
  const u = usage as Record<string, unknown>;
  return counts.some((field) => typeof u[field] === 'number') ? u : undefined;
}

export function normalizedUsage(c: ProviderTokenCounts): Usage {
  const cacheRead = c.cacheRead ?? 0;
  const cacheWrite = c.cacheWrite ?? 0;
  const prompt = c.input + cacheRead + cacheWrite;
  const completion = c.output + (c.reasoning ?? 0);
  const promptDetails: PromptDetails = { cached_tokens: cacheRead };
  if (cacheWrite > 0) {
    promptDetails.cache_creation_tokens = cacheWrite;
    if (c.cacheWriteSplit)
      promptDetails.cache_creation_token_details = {
        ephemeral_5m_input_tokens: c.cacheWriteSplit.ephemeral5m,
        ephemeral_1h_input_tokens: c.cacheWriteSplit.ephemeral1h,
      };
  }
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: promptDetails,
    ...(c.reasoning ? { completion_tokens_details: { reasoning_tokens: c.reasoning } } : {}),
  };
}
