// Reads the rollups for the dashboard (docs/dashboard.md "Metrics"): a chart of one window, and the gateway panels.
// A window reads the rollups kept at its own bucket size, so a chart costs at most 240 rows per rollup key.
import type { Queryable } from '../../platform/store/database.ts';
import {
  trafficPeriods,
  windowGatewayCounts,
  windowRollups,
  type RollupFilter,
  emptySums,
  type MetricWindow,
  type Sums,
} from '../../platform/store/repos/metric-rollups.ts';
import { addSums, pointOf, type Point } from './metric-point.ts';
import { namedWindow } from './metric-window.ts';

export interface Series {
  /** The agent id, model group or deployment ('' for none), or the price component; `all` without groupBy. */
  key: string;
  totals: Point;
  points: (Point & { t: string })[];
}

export interface MetricsChart {
  from: string;
  to: string;
  bucketSeconds: number;
  totals: Point;
  series: Series[];
}

export async function metricsChart(
  db: Queryable,
  projectId: string,
  w: MetricWindow,
  f: RollupFilter,
): Promise<MetricsChart> {
  const rows = await windowRollups(db, projectId, w, f);
  const size = w.bucketSeconds * 1000;
  const buckets = Math.round((w.to - w.from) / size);
  // Per series, one Sums per bucket (index by time), summed over the rollup keys the series holds.
  const bySeries = new Map<string, Sums[]>();
  for (const row of rows) {
    let sums = bySeries.get(row.key);
    if (!sums) bySeries.set(row.key, (sums = Array.from({ length: buckets }, emptySums)));
    addSums(sums[Math.round((row.t - w.from) / size)], row.sums);
  }
  if (!f.groupBy && bySeries.size === 0) bySeries.set('all', Array.from({ length: buckets }, emptySums));
  const spanSeconds = (w.to - w.from) / 1000;
  const all = emptySums();
  const series: Series[] = [];
  for (const [k, sums] of [...bySeries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const total = emptySums();
    const points = sums.map((s, i) => {
      addSums(total, s);
      return { t: new Date(w.from + i * size).toISOString(), ...pointOf(s, w.bucketSeconds) };
    });
    addSums(all, total);
    series.push({ key: k, totals: pointOf(total, spanSeconds), points });
  }
  return {
    from: new Date(w.from).toISOString(),
    to: new Date(w.to).toISOString(),
    bucketSeconds: w.bucketSeconds,
    totals: pointOf(all, spanSeconds),
    series,
  };
}

export interface GatewayPanels {
  refusals: { code: string; count: number }[];
  cache: { hits: number; lookups: number; hitRate: number };
  fallbacks: number;
}

/** Refusals by code, cache hits and lookups, and fallbacks over the window (`benched` is live state, not here). */
export async function gatewayPanels(db: Queryable, projectId: string, w: MetricWindow): Promise<GatewayPanels> {
  const { refusals, cacheHits: hits, cacheLookups: lookups, fallbacks } = await windowGatewayCounts(db, projectId, w);
  return { refusals, cache: { hits, lookups, hitRate: lookups > 0 ? (hits / lookups) * 100 : 0 }, fallbacks };
}

/**
 * The start of the oldest minute with traffic in the last 24 hours, and of the newest hour with traffic in the last
 * 30 days (epoch ms; undefined without any): what `defaultWindow` chooses from.
 */
export async function trafficBounds(
  db: Queryable,
  projectId: string,
  now: number,
): Promise<{ oldestOfLastDay?: number; newest?: number }> {
  const { oldestMinute, newestHour } = await trafficPeriods(db, projectId, {
    minutesSince: namedWindow('24h', now).from,
    hoursSince: namedWindow('30d', now).from,
  });
  return { oldestOfLastDay: oldestMinute, newest: newestHour };
}
