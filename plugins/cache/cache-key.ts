// The cache key of a chat request: project and model group in clear, the canonical request hashed.
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

const byCodePoint = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

/** JSON with every object's keys sorted, recursively; array order is kept because it carries meaning. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(byCodePoint))
      : v,
  );
}

export function cacheKey(projectId: string, group: string, body: JsonObject): string {
  const kept = Object.fromEntries(Object.entries(body).filter(([field]) => !IGNORED_FIELDS.has(field)));
  const hash = createHash('sha256').update(canonicalJson(kept)).digest('hex');
  return `${projectTag(projectId)}:cache:${group}:${hash}`;
}
