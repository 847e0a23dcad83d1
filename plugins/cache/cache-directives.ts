// What the caller allows the cache to do for one request, from HTTP request directives (RFC 9111 section 5.2.1).
import type { IncomingHttpHeaders } from 'node:http';

export interface CacheDirectives {
  /** May answer from a stored response. */
  read: boolean;
  /** May store the response it gets. */
  write: boolean;
}

const text = (value: string | string[] | undefined) =>
  (Array.isArray(value) ? value.join(',') : (value ?? '')).toLowerCase();

/**
 * `cache-control: no-cache` (or `max-age=0`): skip the lookup, store the fresh answer. `no-store`, or
 * `x-svc-cache: bypass` for clients whose proxies rewrite cache-control: neither read nor write.
 */
export function cacheDirectives(headers: IncomingHttpHeaders): CacheDirectives {
  const directives = text(headers['cache-control'])
    .split(',')
    .map((d) => d.trim().replace(/\s*=\s*/, '='));
  const noStore = directives.includes('no-store') || text(headers['x-svc-cache']).trim() === 'bypass';
  const noCache = directives.includes('no-cache') || directives.includes('max-age=0');
  return { read: !noStore && !noCache, write: !noStore };
}
