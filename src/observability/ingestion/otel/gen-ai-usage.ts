// Token usage from OTel GenAI attributes (docs/public-api.md "OpenTelemetry intake", GenAI usage). OTel counts are
// inclusive (input tokens include cached ones, output tokens include reasoning); Langfuse's usage details are exclusive
// buckets, so the detail counts are taken out of input and output and stored under their own keys.
import type { Attributes } from './attribute-values.ts';

const PREFIXES = ['gen_ai.usage.', 'llm.token_count.'];

const INPUT = ['prompt_tokens', 'input_tokens', 'prompt'];
const OUTPUT = ['completion_tokens', 'output_tokens', 'completion'];
const TOTAL = ['total_tokens', 'total'];
/** Detail counts: [attribute names (the semantic conventions' first), exclusive key, the bucket they are part of]. */
const DETAILS: [string[], string, 'input' | 'output'][] = [
  [
    [
      'cache_read.input_tokens',
      'cache_read_input_tokens',
      'cache_read_tokens',
      'input_tokens_details.cached_tokens',
      'prompt_tokens_details.cached_tokens',
      'prompt_details.cache_read',
    ],
    'input_cached_tokens',
    'input',
  ],
  [
    [
      'cache_creation.input_tokens',
      'cache_creation_input_tokens',
      'cache_creation_tokens',
      'cache_write_tokens',
      'prompt_details.cache_write',
    ],
    'input_cache_creation',
    'input',
  ],
  [
    [
      'reasoning.output_tokens',
      'reasoning_tokens',
      'output_tokens_details.reasoning_tokens',
      'completion_tokens_details.reasoning_tokens',
      'completion_details.reasoning',
    ],
    'output_reasoning_tokens',
    'output',
  ],
  [
    [
      'audio_tokens',
      'output_tokens_details.audio_tokens',
      'completion_tokens_details.audio_tokens',
      'completion_details.audio',
    ],
    'output_audio_tokens',
    'output',
  ],
];
// Not token counts, though they share the prefix.
const IGNORED = new Set(['cost']);

const count = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : undefined;
};

/** The usage counts under the GenAI prefixes, as exclusive buckets; undefined when the span has none. */
export function genAiUsageOf(attrs: Attributes): Record<string, number> | undefined {
  const raw = new Map<string, number>();
  for (const [k, v] of Object.entries(attrs)) {
    const prefix = PREFIXES.find((p) => k.startsWith(p));
    const n = prefix ? count(v) : undefined;
    if (prefix && n !== undefined) raw.set(k.slice(prefix.length).replace(/^details\./, ''), n);
  }
  if (raw.size === 0) return undefined;
  const take = (names: string[]) => {
    const name = names.find((x) => raw.has(x));
    const n = name === undefined ? undefined : raw.get(name);
    for (const x of names) raw.delete(x);
    return n;
  };
  const out: Record<string, number> = {};
  const buckets = { input: take(INPUT), output: take(OUTPUT) };
  const total = take(TOTAL);
  for (const [names, key, bucket] of DETAILS) {
    const n = take(names);
    if (n === undefined) continue;
    out[key] = n;
    if (buckets[bucket] !== undefined) buckets[bucket] = Math.max(0, buckets[bucket]! - n);
  }
  if (buckets.input !== undefined) out.input = buckets.input;
  if (buckets.output !== undefined) out.output = buckets.output;
  if (total !== undefined) out.total = total;
  for (const [k, n] of raw) if (!IGNORED.has(k)) out[k] = n;
  return Object.keys(out).length > 0 ? out : undefined;
}
