// The time span of a metrics request (docs/dashboard.md "Metrics"): a named window or a custom from/to, cut into
// buckets aligned to multiples of the bucket size since the epoch (UTC), the last bucket holding `now`.
import { BUCKET_SECONDS, type BucketSeconds, type MetricWindow } from '../../platform/store/repos/metric-rollups.ts';

export const MAX_BUCKETS = 240;

export const WINDOWS = {
  '1h': { ms: 3_600_000, bucketSeconds: 60 },
  '24h': { ms: 86_400_000, bucketSeconds: 900 },
  '7d': { ms: 7 * 86_400_000, bucketSeconds: 3600 },
  '30d': { ms: 30 * 86_400_000, bucketSeconds: 21_600 },
} as const satisfies Record<string, { ms: number; bucketSeconds: BucketSeconds }>;
export type WindowName = keyof typeof WINDOWS;

export const isWindowName = (value: string): value is WindowName => Object.hasOwn(WINDOWS, value);

/** A named window ending with the bucket that holds `now`. */
export function namedWindow(name: WindowName, now: number): MetricWindow {
  const { ms, bucketSeconds } = WINDOWS[name];
  const size = bucketSeconds * 1000;
  const to = Math.floor(now / size) * size + size;
  return { from: to - ms, to, bucketSeconds };
}

/**
 * The window the dashboard opens on when none is asked for: the smallest preset holding all traffic of the last 24
 * hours (so a newcomer's first requests fill the last hour instead of one spike at the edge of a day); without traffic
 * in the last 24 hours, the smallest holding the most recent traffic; without any, the last hour.
 */
export function defaultWindow(
  now: number,
  oldestOfLastDay: number | undefined,
  newest: number | undefined,
): WindowName {
  const holds = (name: WindowName, t: number) => t >= namedWindow(name, now).from;
  if (oldestOfLastDay !== undefined) return holds('1h', oldestOfLastDay) ? '1h' : '24h';
  if (newest !== undefined) return holds('7d', newest) ? '7d' : '30d';
  return '1h';
}

/**
 * A custom range, widened to whole buckets of the smallest size that gives at most 240 of them; undefined when
 * even the largest size needs more (a range over 60 days).
 */
export function customWindow(from: number, to: number): MetricWindow | undefined {
  for (const bucketSeconds of BUCKET_SECONDS) {
    const size = bucketSeconds * 1000;
    const start = Math.floor(from / size) * size;
    const end = Math.ceil(to / size) * size;
    if ((end - start) / size <= MAX_BUCKETS) return { from: start, to: end, bucketSeconds };
  }
  return undefined;
}
