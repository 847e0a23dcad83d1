// The provider's usage as the gateway books it (docs/decisions.md "Provider usage that is not a count"). Every
// provider family's usage reaches the gateway through the router (a JSON answer's usage, a stream's usage chunks),
// which checks it here before it is priced, charged to budgets and rate limits, or traced.
import type { Usage } from '../platform/openai/wire-types.ts';
import { isObject } from '../platform/validation/json-object.ts';

/** The most tokens one field of one response may count; more is not a count a provider can mean. */
export const USAGE_TOKENS_MAX = 10_000_000;

/**
 * The usage to book, with `repaired` saying what was changed (parts above their totals clamped, a total that is not
 * the sum replaced); or `invalid` saying why there is nothing to book (then the gateway estimates the usage).
 */
type CheckedUsage = { usage: Usage; repaired?: string } | { invalid: string };

/** Why `value` is not a token count, or undefined when it is one. */
function notACount(value: unknown): string | undefined {
  if (value === undefined) return 'is missing';
  if (typeof value !== 'number') return `is ${value === null ? 'null' : typeof value}, not a number`;
  if (!Number.isInteger(value)) return `${value} is not a whole number`;
  if (value < 0) return `${value} is negative`;
  if (value > USAGE_TOKENS_MAX) return `${value} is above ${USAGE_TOKENS_MAX}`;
  return undefined;
}

/** True when `value` is a token count the gateway books as it is. */
export const isTokenCount = (value: unknown): value is number => notACount(value) === undefined;

class InvalidUsage extends Error {}

/** A required count: a field absent, null or of any other kind makes the usage invalid. */
function required(usage: Record<string, unknown>, field: string): number {
  const why = notACount(usage[field]);
  if (why) throw new InvalidUsage(`${field} ${why}`);
  return usage[field] as number;
}

/** An optional count (absent or null: not there); present, it must be a count. `path`: where `parent` is. */
function optional(parent: Record<string, unknown> | undefined, path: string, field: string): number | undefined {
  const value = parent?.[field];
  if (value === undefined || value === null) return undefined;
  const why = notACount(value);
  if (why) throw new InvalidUsage(`${path === '' ? '' : `${path}.`}${field} ${why}`);
  return value as number;
}

/** An optional object of details (absent or null: not there). */
function details(parent: Record<string, unknown>, field: string): Record<string, unknown> | undefined {
  const value = parent[field];
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw new InvalidUsage(`${field} is not an object`);
  return value;
}

/**
 * The usage a provider reported, checked: prompt_tokens is required, completion_tokens may be absent (embeddings),
 * and every count the gateway reads must be a whole number from 0 to USAGE_TOKENS_MAX. Parts above what contains
 * them are clamped: cache reads to the prompt, cache writes to the rest of the prompt, 1-hour writes to the writes,
 * reasoning to the completion; total_tokens is prompt plus completion. Only the fields the gateway reads are kept.
 */
export function checkedUsage(raw: unknown): CheckedUsage {
  if (!isObject(raw)) return { invalid: 'usage is not an object' };
  try {
    const prompt = required(raw, 'prompt_tokens');
    const completion = raw.completion_tokens === undefined ? 0 : required(raw, 'completion_tokens');
    const total = optional(raw, '', 'total_tokens');
    const promptDetails = details(raw, 'prompt_tokens_details');
    const writeDetails = promptDetails && details(promptDetails, 'cache_creation_token_details');
    const completionDetails = details(raw, 'completion_tokens_details');
    const read = optional(promptDetails, 'prompt_tokens_details', 'cached_tokens');
    const writes = optional(promptDetails, 'prompt_tokens_details', 'cache_creation_tokens');
    const writePath = 'prompt_tokens_details.cache_creation_token_details';
    const writes5m = optional(writeDetails, writePath, 'ephemeral_5m_input_tokens');
    const writes1h = optional(writeDetails, writePath, 'ephemeral_1h_input_tokens');
    const reasoning = optional(completionDetails, 'completion_tokens_details', 'reasoning_tokens');

    const repairs: string[] = [];
    const clamp = (name: string, value: number | undefined, max: number, of: string) => {
      if (value === undefined || value <= max) return value;
      repairs.push(`${name} ${value} above ${of} ${max}`);
      return max;
    };
    const usage: Usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
    if (total !== undefined && total !== prompt + completion)
      repairs.push(`total_tokens ${total} is not prompt_tokens + completion_tokens`);
    if (promptDetails) {
      const cachedTokens = clamp('cached_tokens', read, prompt, 'prompt_tokens');
      const creation = clamp('cache_creation_tokens', writes, prompt - (cachedTokens ?? 0), 'the uncached prompt');
      const out: NonNullable<Usage['prompt_tokens_details']> = {};
      if (cachedTokens !== undefined) out.cached_tokens = cachedTokens;
      if (creation !== undefined) out.cache_creation_tokens = creation;
      if (writes5m !== undefined || writes1h !== undefined) {
        const split: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number } = {};
        const bound = creation ?? 0;
        const long = clamp('ephemeral_1h_input_tokens', writes1h, bound, 'cache_creation_tokens');
        if (long !== undefined) split.ephemeral_1h_input_tokens = long;
        const short = clamp('ephemeral_5m_input_tokens', writes5m, bound - (long ?? 0), 'the other cache writes');
        if (short !== undefined) split.ephemeral_5m_input_tokens = short;
        out.cache_creation_token_details = split;
      }
      usage.prompt_tokens_details = out;
    }
    if (reasoning !== undefined)
      usage.completion_tokens_details = {
        reasoning_tokens: clamp('reasoning_tokens', reasoning, completion, 'completion_tokens'),
      };
    return repairs.length > 0 ? { usage, repaired: repairs.join('; ') } : { usage };
  } catch (err) {
    if (err instanceof InvalidUsage) return { invalid: err.message };
    throw err;
  }
}
