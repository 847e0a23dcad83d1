// When a budget period resets, from the period id an admission was made in (src/platform/store/counters/periods.ts: UTC
// calendar days `d<days since epoch>` and months `m<YYYY-MM>`), so a refusal can tell the client when to retry.
import { periodOfId } from '../../src/plugin-api/index.ts';

const DAY_MS = 86_400_000;

/** Epoch milliseconds at which the period ends; undefined for `total`, which never resets. */
export function periodResetAt(periodId: string): number | undefined {
  const period = periodOfId(periodId);
  if (period === 'daily') return (Number(periodId.slice(1)) + 1) * DAY_MS;
  if (period === 'monthly') {
    const [year, month] = periodId.slice(1).split('-').map(Number);
    // `month` is 1-based, so as a Date.UTC month index it is the next month.
    return Date.UTC(year, month, 1);
  }
  return undefined;
}

/** Whole seconds from `now` until `resetAt`, at least 1 (a retry-after of 0 would invite a retry in the same period). */
export function secondsUntil(resetAt: number, now: number): number {
  return Math.max(1, Math.ceil((resetAt - now) / 1000));
}
