// The contract of a request rate limiter: one token bucket per key. In-process today (memory-token-bucket.ts); a shared
// store (Redis) can implement the same interface, so callers take a token and read the decision the same way.

/** Refill rate and capacity of a bucket. A bucket starts full. */
export interface RateLimitRule {
  requestsPerMinute: number;
  burst: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** The bucket's capacity (the burst). */
  limit: number;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Epoch milliseconds at which the bucket is full again. */
  resetAt: number;
  /** Milliseconds until one token is available; 0 when allowed. */
  retryAfterMs: number;
}

export interface RateLimiter {
  /** Takes one token from the bucket of `key` at time `now` (epoch ms), if there is one. */
  take(key: string, rule: RateLimitRule, now: number): Promise<RateLimitDecision>;
}
