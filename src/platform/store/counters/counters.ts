// Counters shared by every process of a deployment (docs/architecture.md "Off the request path"): rate-limit windows
// (the gateway's and the REST API's), budget spend and reservations, the shared response cache, and timed marks
// (deployment bench state, refusal-trace sampling), leases (requests in flight per deployment) and moving averages
// (deployment latency). Two implementations with one contract: in-process (memory-counters.ts, one process) and Redis
// (redis-counters.ts, many replicas, atomic Lua scripts on Redis time). A third, shared-memory-counters.ts, is the
// in-process store for a process that serves requests on several worker threads: the same semantics as
// memory-counters.ts over one table in a SharedArrayBuffer, each call one step under the table's lock, so limits,
// budgets and marks are exact across the threads with no message between them. Keys passed in are base names; the
// implementation adds its prefix and the window or period suffix. Keys of one call must share a hash tag (see
// `projectTag`) so a Redis Cluster keeps them in one slot.

import type { BudgetPeriod } from '../../config/types.ts';
import type { RateLimitDecision, RateLimitRule } from './rate-limit.ts';

export type { BudgetPeriod };

/** One counter in a calendar-minute window: admitted when value + amount <= limit (no limit: always). */
export interface MinuteCheck {
  key: string;
  amount: number;
  limit?: number;
}

export interface MinuteAdmission {
  allowed: boolean;
  /** Index of the first check that would go over its limit; -1 when allowed. */
  failed: number;
  /** The window the amounts went into (Unix minute); settle against it. */
  minute: number;
  /** Milliseconds until that window ends. */
  msLeft: number;
}

/** One spend counter for a budget period, in integer nano-USD. `limit` absent: recorded, never refused (soft). */
export interface PeriodCheck {
  key: string;
  period: BudgetPeriod;
  amount: number;
  limit?: number;
}

export type PeriodAdmission =
  | { outcome: 'allowed'; periodIds: string[]; values: number[] }
  | { outcome: 'refused'; failed: number; periodIds: string[]; values: number[] }
  /** The counter of check `index` does not exist yet (new period, or a Redis that lost its data): seed it, retry. */
  | { outcome: 'unseeded'; index: number; periodIds: string[] };

export interface PeriodAdjustment {
  key: string;
  periodId: string;
  delta: number;
}

/** Rate-limit windows and budget periods admitted together: one atomic step for both. */
export interface AdmissionChecks {
  minute: readonly MinuteCheck[];
  period: readonly PeriodCheck[];
}

/**
 * A joint admission. Minute checks are looked at first, so a rate limit refuses before a budget counter is read (or
 * must be seeded); nothing is added unless every check passes. The window and period ids are those of the step.
 */
export type Admission = { minute: number; msLeft: number; periodIds: string[] } & (
  | { outcome: 'allowed'; values: number[] }
  | { outcome: 'refused'; side: 'minute'; failed: number }
  | { outcome: 'refused'; side: 'period'; failed: number; values: number[] }
  /** The period counter of check `index` does not exist yet: seed it, retry. */
  | { outcome: 'unseeded'; index: number }
);

/** Adjustments of one joint admission's reservations, made in one step. */
export interface Settlement {
  /** Deltas to minute counters of the admission's window (`minute`). */
  minute?: { minute: number; adjustments: readonly { key: string; delta: number }[] };
  period?: readonly PeriodAdjustment[];
}

/** Byte values with a time to live, shared by every replica (Redis only). */
export interface SharedValues {
  get(key: string): Promise<Buffer | null>;
  set(key: string, value: Buffer, ttlMs: number): Promise<void>;
}

export interface Counters {
  readonly kind: 'memory' | 'redis';
  /**
   * Adds every amount to its counter (minute checks in the current minute, period checks in their current period)
   * when every counter stays within its limit; else adds nothing. Period counters must be seeded (from the spend
   * ledger) before first use. One Lua script in Redis, one synchronous step in-process.
   */
  admit(checks: AdmissionChecks): Promise<Admission>;
  /**
   * Adds deltas (negative to give back) to counters of an earlier admission; counters that are gone are left alone.
   * One call to Redis, one step in-process.
   */
  settle(settlement: Settlement): Promise<void>;
  /** `admit` with minute checks only. */
  admitMinute(checks: readonly MinuteCheck[]): Promise<MinuteAdmission>;
  /** `settle` of minute counters only. */
  adjustMinute(minute: number, adjustments: readonly { key: string; delta: number }[]): Promise<void>;
  /** `admit` with period checks only. */
  admitPeriod(checks: readonly PeriodCheck[]): Promise<PeriodAdmission>;
  /** Sets a period counter when it does not exist (another process may have seeded it first). */
  seedPeriod(key: string, periodId: string, value: number): Promise<void>;
  /** `settle` of period counters only. */
  adjustPeriod(adjustments: readonly PeriodAdjustment[]): Promise<void>;
  /** Reads period counters; null where the counter does not exist. */
  readPeriods(entries: readonly { key: string; periodId: string }[]): Promise<(number | null)[]>;
  /**
   * Reads marks (a mark is a key that holds its end, epoch ms on the store's clock, and is gone after it): the end,
   * or null where there is none. In-process this answers synchronously, so a hot path pays no promise for it.
   */
  readMarks(keys: readonly string[]): (number | null)[] | Promise<(number | null)[]>;
  /** Makes the mark last `ms` from now unless it lasts longer already; resolves with its end. */
  extendMark(key: string, ms: number): Promise<number>;
  /** Sets the mark for `ms` when there is none. `claimed`: this call set it; `msLeft`: how long the mark lasts. */
  claimMark(key: string, ms: number): Promise<{ claimed: boolean; msLeft: number }>;
  /**
   * Counts the live leases under each key. A lease counts one thing in progress (a request in flight) and ends when it
   * is released or its time is up, so a process that dies holding one stops being counted then. In-process this
   * answers synchronously.
   */
  countLeases(keys: readonly string[]): number[] | Promise<number[]>;
  /** Takes lease `id` under `key` for at most `ms`. */
  takeLease(key: string, id: string, ms: number): Promise<void>;
  /** Ends lease `id` under `key`; one that is gone already is left alone. */
  releaseLease(key: string, id: string): Promise<void>;
  /** Reads the moving averages `fields` of `key`; null where there is none. In-process this answers synchronously. */
  readAverages(key: string, fields: readonly string[]): (number | null)[] | Promise<(number | null)[]>;
  /**
   * Moves the average `field` of `key` toward `sample` by the share `alpha` (the first sample sets it). The averages
   * of a key that gets no sample for `ttlMs` are dropped.
   */
  addSample(key: string, field: string, sample: number, alpha: number, ttlMs: number): Promise<void>;
  /** Takes one request from the rate limit of `key` (calendar-minute window plus burst), or refuses and takes none. */
  admitRate(key: string, rule: RateLimitRule): Promise<RateLimitDecision>;
  /** Present when values are shared across replicas (Redis). */
  readonly shared?: SharedValues;
  /** False while the backing store cannot be reached: limits cannot be enforced (503 gateway_config_stale). */
  available(): boolean;
  close(): Promise<void>;
}

/** Thrown by a counters call the backing store could not answer. */
export class CountersUnavailableError extends Error {}

/** The hash tag that keeps one project's counters in one Redis Cluster slot. */
export const projectTag = (projectId: string) => `{p:${projectId}}`;

/** The hash tag that keeps one model group's bench state in one Redis Cluster slot (read in one call). */
export const groupTag = (groupName: string) => `{g:${groupName}}`;
