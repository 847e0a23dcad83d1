// The cache key of a chat request: project and model group in clear, the canonical text of the request hashed.
import { createHash } from 'node:crypto';
import { type JsonObject, projectTag } from '../../src/plugin-api/index.ts';

/**
 * Fields that do not change the answer. `model` is replaced by the resolved group (an omitted model and the group's
 * name are one request); the others steer delivery, attribution, storage or the provider's own prompt cache.
 * `parallel_tool_calls`, `n`, `seed`, sampling, tools and formats all change the answer and stay.
 */
const IGNORED_FIELDS = new Set([
  'model',
  'stream',
  'stream_options',
  'user',
  'safety_identifier',
  'metadata',
  'store',
  'service_tier',
  'prompt_cache_key',
]);

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A text that two JSON values share exactly when they are equal with object keys in any order: keys sorted at every
 * depth, array order kept, each string and key prefixed with its length so no text inside one can pass for structure.
 * Nothing is escaped, so building it costs a walk of the value and string concatenation, not a JSON serialisation
 * (about a third of JSON.stringify's time on a 4 MB prompt).
 */
export function canonicalText(value: unknown): string {
  if (typeof value === 'string')
    // A lone surrogate has no UTF-8 form (the hash would see U+FFFD): such a string goes in escaped, as JSON.
    return value.isWellFormed() ? `s${value.length}:${value}` : `j${JSON.stringify(value)}`;
  if (value === null || typeof value !== 'object') return `${typeof value === 'number' ? 'd' : 'b'}${String(value)};`;
  if (Array.isArray(value)) {
    let text = `[${value.length}`;
    for (const item of value) text += canonicalText(item);
    return text;
  }
  const keys = Object.keys(value).sort(byCodePoint);
  let text = `{${keys.length}`;
  for (const k of keys) text += `${k.length}:${k}${canonicalText((value as Record<string, unknown>)[k])}`;
  return text;
}

export function cacheKey(projectId: string, group: string, body: JsonObject): string {
  const kept: JsonObject = {};
  for (const field in body) if (!IGNORED_FIELDS.has(field)) kept[field] = body[field];
  const hash = createHash('sha256').update(canonicalText(kept)).digest('hex');
  return `${projectTag(projectId)}:cache:${group}:${hash}`;
}
