// In-process counters: one process enforces its own limits. Time comes from the injected clock. A joint admission
// and its settlement are each one synchronous step, so no other request's step comes between their checks and adds.
import type { Clock } from '../../clock.ts';
import { memoryRateLimiter } from './memory-rate-limiter.ts';
import type { RateLimitDecision, RateLimitRule } from './rate-limit.ts';
import type { Admission, AdmissionChecks, Counters, Settlement } from './counters.ts';
import { OneSideCalls } from './one-side-calls.ts';
import { admissionWindow, decideAdmission } from './admission.ts';
import { MINUTE_TTL_MS, PERIOD_TTL_MS, periodOfId } from './periods.ts';

interface Entry {
  value: number;
  expiresAt: number;
}

export class MemoryCounters extends OneSideCalls implements Counters {
  readonly kind = 'memory' as const;
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry>();
  readonly #rates = memoryRateLimiter();
  /** Key → lease id → end (epoch ms). */
  readonly #leases = new Map<string, Map<string, number>>();
  readonly #averages = new Map<string, { values: Map<string, number>; expiresAt: number }>();
  #sweptMinute = 0;

  constructor(clock: Clock) {
    super();
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

  async admit(checks: AdmissionChecks): Promise<Admission> {
    const now = this.#clock.now();
    this.#sweep(now);
    const window = admissionWindow(checks, now);
    const minuteKey = (i: number) => `${checks.minute[i].key}:${window.minute}`;
    const periodKey = (i: number) => `${checks.period[i].key}:${window.periodIds[i]}`;
    const admission = decideAdmission(
      checks,
      window,
      (i) => this.#get(minuteKey(i), now),
      (i) => this.#get(periodKey(i), now),
    );
    if (admission.outcome !== 'allowed') return admission;
    for (let i = 0; i < checks.minute.length; i++) this.#add(minuteKey(i), checks.minute[i].amount, now, MINUTE_TTL_MS);
    for (let i = 0; i < checks.period.length; i++)
      this.#add(periodKey(i), checks.period[i].amount, now, PERIOD_TTL_MS[checks.period[i].period]);
    return admission;
  }

  async settle(settlement: Settlement): Promise<void> {
    const now = this.#clock.now();
    const minute = settlement.minute;
    if (minute) {
      for (const a of minute.adjustments) {
        const key = `${a.key}:${minute.minute}`;
        const value = this.#get(key, now);
        if (value !== undefined)
          this.#entries.set(key, { value: value + a.delta, expiresAt: this.#entries.get(key)!.expiresAt });
      }
    }
    // A period counter gone meanwhile is seeded again from the ledger, which already holds the settled spend.
    for (const a of settlement.period ?? [])
      if (this.#get(`${a.key}:${a.periodId}`, now) !== undefined)
        this.#add(`${a.key}:${a.periodId}`, a.delta, now, PERIOD_TTL_MS[periodOfId(a.periodId)]);
  }

  async seedPeriod(key: string, id: string, value: number): Promise<void> {
    const now = this.#clock.now();
    const full = `${key}:${id}`;
    if (this.#get(full, now) === undefined)
      this.#entries.set(full, { value, expiresAt: now + PERIOD_TTL_MS[periodOfId(id)] });
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

  countLeases(keys: readonly string[]): number[] {
    const now = this.#clock.now();
    return keys.map((k) => {
      const leases = this.#leases.get(k);
      if (!leases) return 0;
      for (const [id, end] of leases) if (end <= now) leases.delete(id);
      if (leases.size === 0) this.#leases.delete(k);
      return leases.size;
    });
  }

  async takeLease(key: string, id: string, ms: number): Promise<void> {
    let leases = this.#leases.get(key);
    if (!leases) this.#leases.set(key, (leases = new Map()));
    leases.set(id, this.#clock.now() + ms);
  }

  async releaseLease(key: string, id: string): Promise<void> {
    const leases = this.#leases.get(key);
    if (leases?.delete(id) && leases.size === 0) this.#leases.delete(key);
  }

  readAverages(key: string, fields: readonly string[]): (number | null)[] {
    const set = this.#averages.get(key);
    if (set && set.expiresAt <= this.#clock.now()) this.#averages.delete(key);
    else if (set) return fields.map((f) => set.values.get(f) ?? null);
    return fields.map(() => null);
  }

  async addSample(key: string, field: string, sample: number, alpha: number, ttlMs: number): Promise<void> {
    const now = this.#clock.now();
    let set = this.#averages.get(key);
    if (!set || set.expiresAt <= now) this.#averages.set(key, (set = { values: new Map(), expiresAt: 0 }));
    const old = set.values.get(field);
    set.values.set(field, old === undefined ? sample : old + alpha * (sample - old));
    set.expiresAt = now + ttlMs;
  }

  async admitRate(key: string, rule: RateLimitRule): Promise<RateLimitDecision> {
    return this.#rates.take(key, rule, this.#clock.now());
  }

  available(): boolean {
    return true;
  }

  async close(): Promise<void> {
    this.#entries.clear();
    this.#leases.clear();
    this.#averages.clear();
  }
}
