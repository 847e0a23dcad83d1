// One usage rule for every translated provider (issue 5; docs/decisions.md "Usage of translated providers"):
// prompt_tokens counts cache reads and cache writes, prompt_tokens_details.cached_tokens is the cache reads,
// completion_tokens includes reasoning tokens, total_tokens is the sum.
import type { Usage } from '../openai/wire-types.ts';

export interface ProviderTokenCounts {
  /** Input tokens that were neither read from nor written to the provider's prompt cache. */
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** Reasoning tokens when the provider counts them apart from `output`. */
  reasoning?: number;
}

export function normalizedUsage(c: ProviderTokenCounts): Usage {
  const cacheRead = c.cacheRead ?? 0;
  const prompt = c.input + cacheRead + (c.cacheWrite ?? 0);
  const completion = c.output + (c.reasoning ?? 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cacheRead },
    ...(c.reasoning ? { completion_tokens_details: { reasoning_tokens: c.reasoning } } : {}),
  };
}
