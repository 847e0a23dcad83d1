// How deeply a parsed JSON value nests objects and arrays. Bodies are walked recursively in many places (the token
// estimate, the cache key, schema validation, JSON.stringify, jsonb), and a few kilobytes of `[[[[…` overflow the
// stack in them; so every body is checked here first, with an explicit stack rather than recursion.

/**
 * Deepest nesting a request body may have. JSON-schema tools and response formats, the deepest bodies real clients
 * send, use a few dozen levels (OpenAI's structured outputs allow 10 levels of schema nesting, about 25 JSON levels);
 * 100 leaves room for them and stays far below the depths that overflow a recursive walk (thousands).
 */
export const MAX_JSON_DEPTH = 100;

/** True when `value` nests objects and arrays more than `limit` levels deep (a top-level object or array is level 1). */
export function exceedsJsonDepth(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const values: object[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const node = values.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (child !== null && typeof child === 'object') {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** The error code the admin listener's JSON parser gives a body nested past the limit. */
export const JSON_TOO_DEEP = 'SVC_ERR_JSON_TOO_DEEP';

/** The message every surface answers an over-deep body with (in its own envelope). */
export const tooDeepMessage = (what: string, limit: number = MAX_JSON_DEPTH) =>
  `${what} nests objects and arrays more than ${limit} levels deep.`;
