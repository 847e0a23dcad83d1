// The rate limit of rate-limit.ts held in this process (the in-process counters store): per key, the current
// minute's count and the burst bucket's theoretical arrival time (GCRA), in integer microseconds so that refill is
// exact. The number of keys is bounded, since unauthenticated requests are limited by client address.
import { rateDecision, slotIntervalUs, type RateLimitDecision, type RateLimitRule } from './rate-limit.ts';

export interface KeyState {
  minute: number;
  count: number;
  /** When the burst bucket is full again (µs); at or before now it carries no state. */
  tatUs: number;
}

export interface MemoryRateLimiterOptions {
  /** Keys kept at most; at the bound keys with no state left go first, then the least recently used. */
  maxKeys?: number;
}

export interface MemoryRateLimiter {
  readonly size: number;
  take(key: string, rule: RateLimitRule, nowMs: number): RateLimitDecision;
}

export function memoryRateLimiter(options: MemoryRateLimiterOptions = {}): MemoryRateLimiter {
  const maxKeys = options.maxKeys ?? 10_000;
  // Map order is insertion order; a key is re-inserted on use, so the first entries are the least recently used.
  const keys = new Map<string, KeyState>();

  const prune = (minute: number, nowUs: number) => {
    // A key whose window is over and whose bucket is full again carries no state: starting afresh is the same thing.
    for (const [key, s] of keys) if (s.minute < minute && s.tatUs <= nowUs) keys.delete(key);
    // Evict down to 90% so that a flood of new keys does not rescan the map on every request.
    for (const key of keys.keys()) {
      if (keys.size < maxKeys * 0.9) break;
      keys.delete(key);
    }
  };

  return {
    get size() {
      return keys.size;
    },
    take(key, rule, nowMs) {
      const nowUs = nowMs * 1000;
      const minute = Math.floor(nowMs / 60_000);
      const stored = keys.get(key);
      if (stored) keys.delete(key);
      else if (keys.size >= maxKeys) prune(minute, nowUs);
      const { state, decision } = takeRate(stored, rule, nowMs);
      keys.set(key, state);
      return decision;
    },
  };
}

/**
 * One request against a key's state (`stored`, undefined for a new key): the state to keep (`stored` itself, changed,
 * while its window is current) and the decision. The shared-memory store (shared-memory-counters.ts) decides by it too.
 */
export function takeRate(
  stored: KeyState | undefined,
  rule: RateLimitRule,
  nowMs: number,
): { state: KeyState; decision: RateLimitDecision } {
  const nowUs = nowMs * 1000;
  const minute = Math.floor(nowMs / 60_000);
  // A clock that steps back keeps the later window and arrival time: it must not mint requests.
  const state: KeyState = stored && stored.minute >= minute ? stored : { minute, count: 0, tatUs: stored?.tatUs ?? 0 };
  const interval = slotIntervalUs(rule);
  const tat = Math.max(state.tatUs, nowUs) + interval;
  const burstWaitUs = Math.max(0, tat - interval * rule.burst - nowUs);
  const windowFull = state.count >= rule.requestsPerMinute;
  const admitted = !windowFull && burstWaitUs === 0;
  if (admitted) {
    state.count++;
    state.tatUs = tat;
  }
  const msLeftInMinute = (state.minute + 1) * 60_000 - nowMs;
  const decision = rateDecision(rule, { admitted, count: state.count, msLeftInMinute, windowFull, burstWaitUs }, nowMs);
  return { state, decision };
}
