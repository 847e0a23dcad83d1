// The rate limit the counters store admits requests by (`admitRate`; the REST API limits its keys with it, see
// admin/rest-api/request-guard.ts). A key may make `requestsPerMinute` requests per calendar minute, and bursts are
// bounded too: every request also takes a slot of a bucket of `burst` slots refilled at `requestsPerMinute` a minute
// (GCRA), so a minute's requests cannot arrive in one instant, nor the end of one window and the start of the next
// back to back. Both implementations decide here: in-process (memory-rate-limiter.ts) and in Redis (one Lua script on
// Redis time, redis-counters.ts), shared by every replica.

/** Requests per calendar minute and the burst bound. */
export interface RateLimitRule {
  requestsPerMinute: number;
  burst: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests allowed per minute. */
  limit: number;
  /** Requests left in the current minute's window after this one. */
  remaining: number;
  /** Epoch milliseconds at which the current minute's window ends (and `remaining` is `limit` again). */
  resetAt: number;
  /** Milliseconds until a request would be let through; 0 when allowed. */
  retryAfterMs: number;
  /** What refused the request: the minute's window (checked first) or the burst bound. */
  refusedBy?: 'minute' | 'burst';
}

/** Microseconds between two slots of the burst bucket (rounded up: never faster than the rule). */
export const slotIntervalUs = (rule: RateLimitRule) => Math.ceil(60_000_000 / rule.requestsPerMinute);

/** The raw outcome of one admission, as both implementations compute it. */
export interface RateOutcome {
  admitted: boolean;
  /** Requests counted in the current minute, this one included when admitted. */
  count: number;
  msLeftInMinute: number;
  windowFull: boolean;
  /** Microseconds until the burst bucket has a slot (0 when it has one). */
  burstWaitUs: number;
}

export function rateDecision(rule: RateLimitRule, o: RateOutcome, nowMs: number): RateLimitDecision {
  const base = {
    limit: rule.requestsPerMinute,
    remaining: Math.max(0, rule.requestsPerMinute - o.count),
    resetAt: nowMs + o.msLeftInMinute,
  };
  if (o.admitted) return { allowed: true, ...base, retryAfterMs: 0 };
  const retryAfterMs = Math.max(o.windowFull ? o.msLeftInMinute : 0, Math.ceil(o.burstWaitUs / 1000));
  return { allowed: false, ...base, retryAfterMs, refusedBy: o.windowFull ? 'minute' : 'burst' };
}
