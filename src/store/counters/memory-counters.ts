// In-process counters: one process enforces its own limits. Time comes from the injected clock.
import type { Clock } from '../../pipeline/clock.ts';
import { memoryRateLimiter } from './memory-rate-limiter.ts';
import type { RateLimitDecision, RateLimitRule } from './rate-limit.ts';
import type {
  Counters,
  MinuteAdmission,
  MinuteCheck,
  PeriodAdjustment,
  PeriodAdmission,
  PeriodCheck,
} from './counters.ts';
import { MINUTE_TTL_MS, PERIOD_TTL_MS, periodId, periodOfId } from './periods.ts';

interface Entry {
  value: number;
  expiresAt: number;
}

export class MemoryCounters implements Counters {
  readonly kind = 'memory' as const;
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry>();
  readonly #rates = memoryRateLimiter();
  #sweptMinute = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  #get(key: string, now: number): number | undefined {
    const e = this.#entries.get(key);
    if (e && e.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return e?.value;
  }

  #add(key: string, delta: number, now: number, ttlMs: number): void {
    this.#entries.set(key, { value: (this.#get(key, now) ?? 0) + delta, expiresAt: now + ttlMs });
  }

  /** Drops expired entries once a minute, so keys of gone windows do not pile up. */
  #sweep(now: number): void {
    const minute = Math.floor(now / 60_000);
    if (minute === this.#sweptMinute) return;
    this.#sweptMinute = minute;
    for (const [k, e] of this.#entries) if (e.expiresAt <= now) this.#entries.delete(k);
  }

  async admitMinute(checks: readonly MinuteCheck[]): Promise<MinuteAdmission> {
    const now = this.#clock.now();
    this.#sweep(now);
    const minute = Math.floor(now / 60_000);
    const msLeft = (minute + 1) * 60_000 - now;
    for (let i = 0; i < checks.length; i++) {
      const c = checks[i];
      if (c.limit !== undefined && (this.#get(`${c.key}:${minute}`, now) ?? 0) + c.amount > c.limit)
        return { allowed: false, failed: i, minute, msLeft };
    }
    for (const c of checks) this.#add(`${c.key}:${minute}`, c.amount, now, MINUTE_TTL_MS);
    return { allowed: true, failed: -1, minute, msLeft };
  }

  async adjustMinute(minute: number, adjustments: readonly { key: string; delta: number }[]): Promise<void> {
    const now = this.#clock.now();
    for (const a of adjustments) {
      const key = `${a.key}:${minute}`;
      const value = this.#get(key, now);
      if (value !== undefined)
        this.#entries.set(key, { value: value + a.delta, expiresAt: this.#entries.get(key)!.expiresAt });
    }
  }

  async admitPeriod(checks: readonly PeriodCheck[]): Promise<PeriodAdmission> {
    const now = this.#clock.now();
    const periodIds = checks.map((c) => periodId(c.period, now));
    const values: number[] = [];
    for (let i = 0; i < checks.length; i++) {
      const value = this.#get(`${checks[i].key}:${periodIds[i]}`, now);
      if (value === undefined) return { outcome: 'unseeded', index: i, periodIds };
      values.push(value);
    }
    for (let i = 0; i < checks.length; i++) {
      const c = checks[i];
      if (c.limit !== undefined && values[i] + c.amount > c.limit)
        return { outcome: 'refused', failed: i, periodIds, values };
    }
    for (let i = 0; i < checks.length; i++) {
      this.#add(`${checks[i].key}:${periodIds[i]}`, checks[i].amount, now, PERIOD_TTL_MS[checks[i].period]);
      values[i] += checks[i].amount;
    }
    return { outcome: 'allowed', periodIds, values };
  }

  async seedPeriod(key: string, id: string, value: number): Promise<void> {
    const now = this.#clock.now();
    const full = `${key}:${id}`;
    if (this.#get(full, now) === undefined)
      this.#entries.set(full, { value, expiresAt: now + PERIOD_TTL_MS[periodOfId(id)] });
  }

  async adjustPeriod(adjustments: readonly PeriodAdjustment[]): Promise<void> {
    const now = this.#clock.now();
    // A counter gone meanwhile is seeded again from the ledger, which already holds the settled spend.
    for (const a of adjustments)
      if (this.#get(`${a.key}:${a.periodId}`, now) !== undefined)
        this.#add(`${a.key}:${a.periodId}`, a.delta, now, PERIOD_TTL_MS[periodOfId(a.periodId)]);
  }

  async readPeriods(entries: readonly { key: string; periodId: string }[]): Promise<(number | null)[]> {
    const now = this.#clock.now();
    return entries.map((e) => this.#get(`${e.key}:${e.periodId}`, now) ?? null);
  }

  readMarks(keys: readonly string[]): (number | null)[] {
    const now = this.#clock.now();
    return keys.map((k) => this.#get(k, now) ?? null);
  }

  async extendMark(key: string, ms: number): Promise<number> {
    const now = this.#clock.now();
    this.#sweep(now);
    const end = Math.max(this.#get(key, now) ?? 0, now + ms);
    this.#entries.set(key, { value: end, expiresAt: end });
    return end;
  }

  async claimMark(key: string, ms: number): Promise<{ claimed: boolean; msLeft: number }> {
    const now = this.#clock.now();
    this.#sweep(now);
    const end = this.#get(key, now);
    if (end !== undefined) return { claimed: false, msLeft: end - now };
    this.#entries.set(key, { value: now + ms, expiresAt: now + ms });
    return { claimed: true, msLeft: ms };
  }

  async admitRate(key: string, rule: RateLimitRule): Promise<RateLimitDecision> {
    return this.#rates.take(key, rule, this.#clock.now());
  }

  available(): boolean {
    return true;
  }

  async close(): Promise<void> {
    this.#entries.clear();
  }
}
