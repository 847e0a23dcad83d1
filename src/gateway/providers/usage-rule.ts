// One usage rule for every translated provider (issue 5; docs/decisions.md "Usage of translated providers"):
// prompt_tokens counts cache reads and cache writes, prompt_tokens_details.cached_tokens is the cache reads,
// prompt_tokens_details.cache_creation_tokens the cache writes (when there were any, split by duration when the
// provider says), completion_tokens includes reasoning tokens, total_tokens is the sum.
//
// The translation renames and adds the provider's counts and coerces none of them: a count that is not one (negative,
// a string, a fraction, 1e30, null where the provider never sends null) is carried into the OpenAI field it feeds,
// and a part above its total stays above it, so the usage check at the router (src/plugin-api/usage-check.ts) judges
// what the provider sent exactly as it judges an OpenAI-compatible provider's usage: estimated and flagged, or clamped
// and flagged.
import type { Usage } from '../../platform/openai/wire-types.ts';
import { isObject } from '../../platform/validation/json-object.ts';
import { isTokenCount } from '../../plugin-api/usage-check.ts';

/** A provider's counts by what they are; `undefined` is a count the provider left out (0), anything else is read. */
export interface ProviderTokenCounts {
  /** The counts that add up to the prompt: all input, cache reads and cache writes included. */
  prompt: readonly unknown[];
  /** The counts that add up to the completion, reasoning included. */
  completion: readonly unknown[];
  cacheRead?: unknown;
  /** All cache writes, whatever their duration. */
  cacheWrite?: unknown;
  /** The cache writes by duration, when the provider reports them apart. */
  cacheWriteSplit?: { ephemeral5m: unknown; ephemeral1h: unknown };
  /** Reasoning tokens, a part of the completion. */
  reasoning?: unknown;
}

type PromptDetails = NonNullable<Usage['prompt_tokens_details']>;

/**
 * What the provider sent as usage: its usage object when it carries one of its `counts` (whatever their values);
 * undefined when it sent none (absent, null, an object without counts), and the gateway then estimates the usage
 * (docs/api.md "Provider usage") rather than booking zeros. Usage of another kind is returned as it is, for the usage
 * check to refuse.
 */
export function reportedUsage(usage: unknown, counts: readonly string[]): unknown {
  if (usage === undefined || usage === null) return undefined;
  if (!isObject(usage)) return usage;
  return counts.some((field) => usage[field] !== undefined && usage[field] !== null) ? usage : undefined;
}

/** A count the provider must send: left out, it reads as null, which the usage check refuses. */
export const requiredCount = (value: unknown): unknown => (value === undefined ? null : value);

/** A count the provider may send as null when it has none (Anthropic's cache counts): null reads as left out. */
export const nullableCount = (value: unknown): unknown => (value === null ? undefined : value);

/** The sum of `parts` (left out: 0); the first part that is not a count, unchanged, for the usage check to name. */
function sumOf(parts: readonly unknown[]): unknown {
  let sum = 0;
  for (const part of parts) {
    if (part === undefined) continue;
    if (!isTokenCount(part)) return part;
    sum += part;
  }
  return sum;
}

/** Present unless left out or 0: a zero part adds no detail to the usage. */
const reported = (value: unknown) => value !== undefined && value !== 0;

/**
 * The provider's counts as OpenAI usage, uncoerced. Its values are what the provider sent: the router checks the
 * usage before it books it (src/plugin-api/usage-check.ts), which is why the result is typed as usage only after that
 * check.
 */
export function translatedUsage(c: ProviderTokenCounts): Usage {
  const prompt = sumOf(c.prompt);
  const completion = sumOf(c.completion);
  const details: Record<string, unknown> = { cached_tokens: c.cacheRead ?? 0 };
  const split = c.cacheWriteSplit;
  if (reported(c.cacheWrite) || (split && (reported(split.ephemeral5m) || reported(split.ephemeral1h)))) {
    details.cache_creation_tokens = c.cacheWrite ?? 0;
    if (split)
      details.cache_creation_token_details = {
        ephemeral_5m_input_tokens: split.ephemeral5m ?? 0,
        ephemeral_1h_input_tokens: split.ephemeral1h ?? 0,
      };
  }
  const usage: Record<string, unknown> = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    ...(isTokenCount(prompt) && isTokenCount(completion) ? { total_tokens: prompt + completion } : {}),
    prompt_tokens_details: details as PromptDetails,
  };
  if (reported(c.reasoning)) usage.completion_tokens_details = { reasoning_tokens: c.reasoning };
  return usage as unknown as Usage;
}

/** The usage a client's answer carries when the provider sent none (the gateway books an estimate). */
export function zeroUsage(): Usage {
  return translatedUsage({ prompt: [], completion: [] });
}
