// Token buckets held in this process. Tokens are counted in units of 1/60,000 of a token so that refill is exact
// integer arithmetic: a bucket gains `requestsPerMinute` units per millisecond and a request costs 60,000 units.
import type { RateLimitDecision, RateLimitRule, RateLimiter } from './rate-limiter.ts';

const UNITS_PER_TOKEN = 60_000;

interface Bucket {
  units: number;
  at: number;
}

export interface MemoryTokenBucketOptions {
  /** Buckets kept at most; at the bound full buckets are dropped first, then the least recently used. */
  maxBuckets?: number;
}

export function memoryTokenBucket(options: MemoryTokenBucketOptions = {}): RateLimiter & { readonly size: number } {
  const maxBuckets = options.maxBuckets ?? 10_000;
  // Map order is insertion order; a bucket is re-inserted on use, so the first entries are the least recently used.
  const buckets = new Map<string, Bucket>();

  const levelAt = (b: Bucket, rule: RateLimitRule, now: number) =>
    Math.min(rule.burst * UNITS_PER_TOKEN, b.units + Math.max(0, now - b.at) * rule.requestsPerMinute);

  const prune = (rule: RateLimitRule, now: number) => {
    // A full bucket carries no state: dropping it and starting a new full one later is the same thing.
    for (const [key, b] of buckets) if (levelAt(b, rule, now) >= rule.burst * UNITS_PER_TOKEN) buckets.delete(key);
    // Evict down to 90% so that a flood of new keys does not rescan the map on every request.
    for (const key of buckets.keys()) {
      if (buckets.size < maxBuckets * 0.9) break;
      buckets.delete(key);
    }
  };

  return {
    get size() {
      return buckets.size;
    },
    async take(key: string, rule: RateLimitRule, now: number): Promise<RateLimitDecision> {
      const capacity = rule.burst * UNITS_PER_TOKEN;
      const stored = buckets.get(key);
      let units = stored ? levelAt(stored, rule, now) : capacity;
      const allowed = units >= UNITS_PER_TOKEN;
      if (allowed) units -= UNITS_PER_TOKEN;
      if (stored) buckets.delete(key);
      else if (buckets.size >= maxBuckets) prune(rule, now);
      // A clock that steps back must not mint tokens later: keep the latest time seen.
      buckets.set(key, { units, at: Math.max(now, stored?.at ?? now) });
      return {
        allowed,
        limit: rule.burst,
        remaining: Math.floor(units / UNITS_PER_TOKEN),
        resetAt: now + Math.ceil((capacity - units) / rule.requestsPerMinute),
        retryAfterMs: allowed ? 0 : Math.ceil((UNITS_PER_TOKEN - units) / rule.requestsPerMinute),
      };
    },
  };
}
