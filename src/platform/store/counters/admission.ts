// The joint admission's rule (counters.ts `admit`) for the in-process stores, one thread's (memory-counters.ts) and the
// one shared by threads (shared-memory-counters.ts): each reads its counters its own way, and both decide here. The
// Redis script (redis-scripts.ts) decides the same way in Lua.
import type { Admission, AdmissionChecks } from './counters.ts';
import { periodId } from './periods.ts';

/** The window and period ids a step at `now` admits into. */
export interface AdmissionWindow {
  minute: number;
  msLeft: number;
  periodIds: string[];
}

export function admissionWindow(checks: AdmissionChecks, now: number): AdmissionWindow {
  const minute = Math.floor(now / 60_000);
  return { minute, msLeft: (minute + 1) * 60_000 - now, periodIds: checks.period.map((c) => periodId(c.period, now)) };
}

/**
 * Decides an admission from the counters' values (undefined: no counter), read through `minuteValue` and
 * `periodValue` by check index. Minute checks first, so a rate limit refuses before a budget counter is read; then
 * every period counter must exist; then their limits. Allowed: the period counters' values after the adds, which the
 * caller then makes (every amount to its counter).
 */
export function decideAdmission(
  checks: AdmissionChecks,
  window: AdmissionWindow,
  minuteValue: (index: number) => number | undefined,
  periodValue: (index: number) => number | undefined,
): Admission {
  for (let i = 0; i < checks.minute.length; i++) {
    const c = checks.minute[i];
    if (c.limit !== undefined && (minuteValue(i) ?? 0) + c.amount > c.limit)
      return { outcome: 'refused', side: 'minute', failed: i, ...window };
  }
  const values: number[] = [];
  for (let i = 0; i < checks.period.length; i++) {
    const value = periodValue(i);
    if (value === undefined) return { outcome: 'unseeded', index: i, ...window };
    values.push(value);
  }
  for (let i = 0; i < checks.period.length; i++) {
    const c = checks.period[i];
    if (c.limit !== undefined && values[i] + c.amount > c.limit)
      return { outcome: 'refused', side: 'period', failed: i, ...window, values };
  }
  return { outcome: 'allowed', ...window, values: values.map((v, i) => v + checks.period[i].amount) };
}
