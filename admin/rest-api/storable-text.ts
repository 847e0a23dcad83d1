// PostgreSQL text and jsonb cannot hold U+0000, nor can UTF-8 encode an unpaired surrogate; JSON and URLs can carry
// both. Refusing them here, naming where they are, turns what would be a failed statement (a 500) into a 400.
import type { preValidationAsyncHookHandler } from 'fastify';
import { RestApiError } from './rest-error.ts';

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path to the first string (value or key) that cannot be stored, or undefined when there is none. */
export function unstorablePath(value: unknown, path: string[] = []): string[] | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorablePath(value[i], [...path, String(i)]);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (UNSTORABLE.test(k)) return [...path, k];
      const found = unstorablePath(v, [...path, k]);
      if (found) return found;
    }
  }
  return undefined;
}

const REASON = 'contains U+0000 or an unpaired surrogate, which cannot be stored';
const PARTS = [['params', 'path', 'Path parameter'], ['query', 'query', 'Query parameter'], ['body', 'body', 'Field']] as const;

export const refuseUnstorableText: preValidationAsyncHookHandler = async (req) => {
  for (const [part, location, label] of PARTS) {
    const path = unstorablePath(req[part]);
    if (!path) continue;
    const field = path.map((s) => s.replace(/[\u0000\ud800-\udfff]/g, '\ufffd')).join('.');
    if (field === '') throw new RestApiError('invalid_request', `The request ${location} ${REASON}.`, { reason: REASON, location });
    throw new RestApiError('invalid_request', `${label} ${field} ${REASON}.`, { field, reason: REASON, location });
  }
};
