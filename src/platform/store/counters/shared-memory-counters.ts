// In-process counters shared by the worker threads of one process: the semantics of memory-counters.ts (and of
// memory-rate-limiter.ts for `admitRate`) over one table in a SharedArrayBuffer (shared-table.ts). Every thread makes
// its own SharedMemoryCounters over the same buffer (`createBuffer`, then pass the buffer to the workers); each call
// is one step under the table's lock, so an admission checks and adds atomically across threads, with no message hop.
// Time comes from each instance's injected clock.
//
// What lives where: counters and marks are entries under their own key; a rate-limit key is one entry (the minute,
// its count and the burst bucket's arrival time in µs, kept until the window is over and the bucket full again, when
// the state carries nothing); an average is one entry per field (`key\0field`) plus one entry for the key's expiry,
// tied together by a generation number, so the averages of a key that gets no sample for `ttlMs` are dropped together.
// Leases: one shared count per key, and each instance's own map of the lease ids it took. An instance drops its own
// expired leases from the count when it counts, so a lease of another thread that ran out stays counted until that
// thread next counts (or until every lease under the key has run out, when the count entry expires). Leases only
// steer routing, so that lag is harmless.
import type { Clock } from '../../clock.ts';
import type { Admission, AdmissionChecks, Counters, Settlement } from './counters.ts';
import { OneSideCalls } from './one-side-calls.ts';
import { admissionWindow, decideAdmission } from './admission.ts';
import { MINUTE_TTL_MS, PERIOD_TTL_MS, periodOfId } from './periods.ts';
import { takeRate } from './memory-rate-limiter.ts';
import type { RateLimitDecision, RateLimitRule } from './rate-limit.ts';
import { digest, Kind, SharedTable, type Digest } from './shared-table.ts';

/** Digests kept per instance (hashing is most of a call's cost); the cache starts afresh when full. */
const DIGEST_CACHE = 4096;
/** How long a rate-limit entry is kept after it carries no state (see admitRate). */
const RATE_GRACE_MS = 60_000;

interface OwnLease {
  end: number;
  /** The generation of the count entry this lease was counted in. */
  generation: number;
}

export class SharedMemoryCounters extends OneSideCalls implements Counters {
  readonly kind = 'memory' as const;
  readonly #table: SharedTable;
  readonly #clock: Clock;
  /** Key → lease id → this instance's lease. */
  readonly #leases = new Map<string, Map<string, OwnLease>>();
  /** Per kind: key → digest. */
  readonly #digests = [0, 1, 2, 3].map(() => new Map<string, Digest>());

  /** A table for `capacity` slots (default 131,072, 6 MiB), to hand to every thread's SharedMemoryCounters. */
  static createBuffer(capacity?: number): SharedArrayBuffer {
    return SharedTable.createBuffer(capacity);
  }

  constructor(buffer: SharedArrayBuffer, clock: Clock) {
    super();
    this.#table = new SharedTable(buffer);
    this.#clock = clock;
  }

  #digest(key: string, kind: Kind = Kind.plain): Digest {
    const cache = this.#digests[kind];
    let d = cache.get(key);
    if (d === undefined) {
      if (cache.size >= DIGEST_CACHE) cache.clear();
      cache.set(key, (d = digest(key, kind)));
    }
    return d;
  }

  #get(d: Digest, now: number): number | undefined {
    const s = this.#table.find(d, now);
    return s < 0 ? undefined : this.#table.value(s, 0);
  }

  /** Sets an entry's value and expiry, adding it when absent. */
  #set(d: Digest, value: number, expiresAt: number, now: number): void {
    const t = this.#table;
    let s = t.find(d, now);
    if (s < 0) s = t.insert(d, now, expiresAt);
    else t.setExpiresAt(s, expiresAt);
    t.setValue(s, 0, value);
  }

  #add(d: Digest, delta: number, now: number, ttlMs: number): void {
    this.#set(d, (this.#get(d, now) ?? 0) + delta, now + ttlMs, now);
  }

  async admit(checks: AdmissionChecks): Promise<Admission> {
    const now = this.#clock.now();
    const window = admissionWindow(checks, now);
    const minuteKeys = checks.minute.map((c) => this.#digest(`${c.key}:${window.minute}`));
    const periodKeys = checks.period.map((c, i) => this.#digest(`${c.key}:${window.periodIds[i]}`));
    const t = this.#table;
    return t.withLock(() => {
      const admission = decideAdmission(
        checks,
        window,
        (i) => this.#get(minuteKeys[i], now),
        (i) => this.#get(periodKeys[i], now),
      );
      if (admission.outcome !== 'allowed') return admission;
      // Room for every minute counter first (the period counters exist), so that the adds cannot stop halfway.
      t.reserve(checks.minute.length, now);
      for (let i = 0; i < checks.minute.length; i++)
        this.#add(minuteKeys[i], checks.minute[i].amount, now, MINUTE_TTL_MS);
      for (let i = 0; i < checks.period.length; i++)
        this.#add(periodKeys[i], checks.period[i].amount, now, PERIOD_TTL_MS[checks.period[i].period]);
      return admission;
    });
  }

  async settle(settlement: Settlement): Promise<void> {
    const now = this.#clock.now();
    const minute = settlement.minute;
    const minuteKeys = minute ? minute.adjustments.map((a) => this.#digest(`${a.key}:${minute.minute}`)) : [];
    const periods = settlement.period ?? [];
    const periodKeys = periods.map((a) => this.#digest(`${a.key}:${a.periodId}`));
    const t = this.#table;
    t.withLock(() => {
      for (let i = 0; i < minuteKeys.length; i++) {
        const s = t.find(minuteKeys[i], now);
        if (s >= 0) t.setValue(s, 0, t.value(s, 0) + minute!.adjustments[i].delta);
      }
      // A period counter gone meanwhile is seeded again from the ledger, which already holds the settled spend.
      for (let i = 0; i < periods.length; i++)
        if (this.#get(periodKeys[i], now) !== undefined)
          this.#add(periodKeys[i], periods[i].delta, now, PERIOD_TTL_MS[periodOfId(periods[i].periodId)]);
    });
  }

  async seedPeriod(key: string, id: string, value: number): Promise<void> {
    const now = this.#clock.now();
    const d = this.#digest(`${key}:${id}`);
    this.#table.withLock(() => {
      if (this.#get(d, now) === undefined) this.#set(d, value, now + PERIOD_TTL_MS[periodOfId(id)], now);
    });
  }

  async readPeriods(entries: readonly { key: string; periodId: string }[]): Promise<(number | null)[]> {
    const now = this.#clock.now();
    const keys = entries.map((e) => this.#digest(`${e.key}:${e.periodId}`));
    return this.#table.withLock(() => keys.map((d) => this.#get(d, now) ?? null));
  }

  readMarks(keys: readonly string[]): (number | null)[] {
    const now = this.#clock.now();
    const digests = keys.map((k) => this.#digest(k));
    return this.#table.withLock(() => digests.map((d) => this.#get(d, now) ?? null));
  }

  async extendMark(key: string, ms: number): Promise<number> {
    const now = this.#clock.now();
    const d = this.#digest(key);
    return this.#table.withLock(() => {
      const end = Math.max(this.#get(d, now) ?? 0, now + ms);
      this.#set(d, end, end, now);
      return end;
    });
  }

  async claimMark(key: string, ms: number): Promise<{ claimed: boolean; msLeft: number }> {
    const now = this.#clock.now();
    const d = this.#digest(key);
    return this.#table.withLock(() => {
      const end = this.#get(d, now);
      if (end !== undefined) return { claimed: false, msLeft: end - now };
      this.#set(d, now + ms, now + ms, now);
      return { claimed: true, msLeft: ms };
    });
  }

  // Lease count entries: value 0 the count, value 1 the entry's generation.

  /** Takes one off the count a lease of this instance was counted in, when that entry still lives. */
  #uncount(d: Digest, lease: OwnLease, now: number): void {
    const t = this.#table;
    const s = t.find(d, now);
    if (s < 0 || t.value(s, 1) !== lease.generation) return;
    const count = t.value(s, 0) - 1;
    if (count <= 0) t.remove(s);
    else t.setValue(s, 0, count);
  }

  countLeases(keys: readonly string[]): number[] {
    const now = this.#clock.now();
    const digests = keys.map((k) => this.#digest(`l\0${k}`));
    const t = this.#table;
    return t.withLock(() =>
      keys.map((k, i) => {
        const own = this.#leases.get(k);
        if (own) {
          for (const [id, lease] of own)
            if (lease.end <= now) {
              own.delete(id);
              this.#uncount(digests[i], lease, now);
            }
          if (own.size === 0) this.#leases.delete(k);
        }
        const s = t.find(digests[i], now);
        return s < 0 ? 0 : t.value(s, 0);
      }),
    );
  }

  async takeLease(key: string, id: string, ms: number): Promise<void> {
    const now = this.#clock.now();
    const end = now + ms;
    const d = this.#digest(`l\0${key}`);
    const t = this.#table;
    let own = this.#leases.get(key);
    if (!own) this.#leases.set(key, (own = new Map()));
    const held = own.get(id);
    const generation = t.withLock(() => {
      let s = t.find(d, now);
      if (held && s >= 0 && t.value(s, 1) === held.generation) {
        // Taken again: a new end, counted once.
        if (t.expiresAt(s) < end) t.setExpiresAt(s, end);
        return held.generation;
      }
      if (s < 0) {
        s = t.insert(d, now, end);
        t.setValue(s, 1, t.nextGeneration());
      } else if (t.expiresAt(s) < end) t.setExpiresAt(s, end);
      t.setValue(s, 0, t.value(s, 0) + 1);
      return t.value(s, 1);
    });
    own.set(id, { end, generation });
  }

  async releaseLease(key: string, id: string): Promise<void> {
    const own = this.#leases.get(key);
    const lease = own?.get(id);
    if (!own || !lease) return;
    own.delete(id);
    if (own.size === 0) this.#leases.delete(key);
    const now = this.#clock.now();
    const d = this.#digest(`l\0${key}`);
    this.#table.withLock(() => this.#uncount(d, lease, now));
  }

  // Averages: the key's entry holds the expiry and (value 1) the generation of this life of the key; a field entry
  // holds the average (value 0) and the generation it belongs to (value 1), and no expiry of its own: it counts only
  // while its key's entry of that generation lives, and a sweep drops it after.

  readAverages(key: string, fields: readonly string[]): (number | null)[] {
    const now = this.#clock.now();
    const k = this.#digest(key, Kind.averageKey);
    const fs = fields.map((f) => this.#digest(`${key}\0${f}`, Kind.averageField));
    const t = this.#table;
    return t.withLock(() => {
      const s = t.find(k, now);
      if (s < 0) return fields.map(() => null);
      const generation = t.value(s, 1);
      return fs.map((d) => {
        const f = t.find(d, now);
        return f >= 0 && t.value(f, 1) === generation ? t.value(f, 0) : null;
      });
    });
  }

  async addSample(key: string, field: string, sample: number, alpha: number, ttlMs: number): Promise<void> {
    const now = this.#clock.now();
    const k = this.#digest(key, Kind.averageKey);
    const fd = this.#digest(`${key}\0${field}`, Kind.averageField);
    const t = this.#table;
    t.withLock(() => {
      t.reserve(2, now);
      let s = t.find(k, now);
      if (s < 0) {
        s = t.insert(k, now, now + ttlMs);
        t.setValue(s, 1, t.nextGeneration());
      } else t.setExpiresAt(s, now + ttlMs);
      const generation = t.value(s, 1);
      let f = t.find(fd, now);
      let old: number | undefined;
      if (f < 0) f = t.insert(fd, now, Infinity);
      else if (t.value(f, 1) === generation) old = t.value(f, 0);
      t.setValue(f, 0, old === undefined ? sample : old + alpha * (sample - old));
      t.setValue(f, 1, generation);
    });
  }

  // Rate-limit entries: value 0 the minute, 1 its count, 2 the burst bucket's arrival time (µs), decided by
  // memory-rate-limiter.ts's takeRate. The entry carries no state once the window is over and the bucket is full
  // again (starting afresh is the same thing); it is kept a minute longer (RATE_GRACE_MS), so that a clock stepping
  // back by up to a minute finds it and keeps the later window, as in-process. (The in-process limiter keeps a key
  // until it needs the room, so a clock stepping back further may find state there that this store has dropped.)

  async admitRate(key: string, rule: RateLimitRule): Promise<RateLimitDecision> {
    const nowMs = this.#clock.now();
    const d = this.#digest(key, Kind.rate);
    const t = this.#table;
    return t.withLock(() => {
      let s = t.find(d, nowMs);
      const stored = s < 0 ? undefined : { minute: t.value(s, 0), count: t.value(s, 1), tatUs: t.value(s, 2) };
      const { state, decision } = takeRate(stored, rule, nowMs);
      const expiresAt = Math.max((state.minute + 1) * 60_000, Math.ceil(state.tatUs / 1000)) + RATE_GRACE_MS;
      if (s < 0) s = t.insert(d, nowMs, expiresAt);
      else t.setExpiresAt(s, expiresAt);
      t.setValue(s, 0, state.minute);
      t.setValue(s, 1, state.count);
      t.setValue(s, 2, state.tatUs);
      return decision;
    });
  }

  available(): boolean {
    return true;
  }

  /** Gives back this instance's leases; the table stays (other threads still use it). */
  async close(): Promise<void> {
    const now = this.#clock.now();
    const t = this.#table;
    t.withLock(() => {
      for (const [key, own] of this.#leases) {
        const d = this.#digest(`l\0${key}`);
        for (const lease of own.values()) this.#uncount(d, lease, now);
      }
    });
    this.#leases.clear();
  }
}
