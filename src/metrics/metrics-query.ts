// Reads the rollups for the dashboard (docs/dashboard.md "Metrics"): a chart of one window, and the gateway panels.
// A window reads the rollups kept at its own bucket size, so a chart costs at most 240 rows per rollup key.
import type { Queryable } from '../store/database.ts';
import { conditions, num } from '../store/repos/rows.ts';
import type { Histogram } from './latency-histogram.ts';
import { addSums, emptySums, pointOf, type Point, type Sums } from './metric-point.ts';
import { namedWindow, type MetricWindow } from './metric-window.ts';

export const GROUP_BY = ['agent', 'model_group', 'deployment'] as const;
export type GroupBy = (typeof GROUP_BY)[number];
const GROUP_COLUMN: Record<GroupBy, string> = {
  agent: 'agent_id',
  model_group: 'model_group',
  deployment: 'deployment',
};

export interface MetricsFilter {
  /** Agent id, or agent name (every version). */
  agent?: string;
  modelGroup?: string;
  groupBy?: GroupBy;
}

export interface Series {
  /** The agent id, model group or deployment ('' for none); `all` without groupBy. */
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

/** The WHERE clause of a window's rollups, with `$1` = project. */
function windowConditions(projectId: string, w: MetricWindow) {
  const c = conditions('r.project_id = $1', projectId);
  c.add((p) => `r.period_s = ${p}`, w.bucketSeconds);
  c.add((p) => `r.period_start >= ${p}::timestamptz`, new Date(w.from).toISOString());
  c.add((p) => `r.period_start < ${p}::timestamptz`, new Date(w.to).toISOString());
  return c;
}

export async function metricsChart(
  db: Queryable,
  projectId: string,
  w: MetricWindow,
  f: MetricsFilter,
): Promise<MetricsChart> {
  const c = windowConditions(projectId, w);
  if (f.agent !== undefined)
    c.add(
      (p) => `(r.agent_id = ${p} OR r.agent_id IN (SELECT id FROM agents WHERE project_id = $1 AND name = ${p}))`,
      f.agent,
    );
  if (f.modelGroup !== undefined) c.add((p) => `r.model_group = ${p}`, f.modelGroup);
  const key = f.groupBy ? `r.${GROUP_COLUMN[f.groupBy]}` : `'all'`;
  const r = await db.query<{
    t: unknown;
    k: string;
    requests: unknown;
    errors: unknown;
    tokens: unknown;
    cost: unknown;
    latency: Histogram;
  }>(
    `SELECT r.period_start AS t, ${key} AS k, r.requests, r.errors, r.tokens, r.cost_nano_usd AS cost, r.latency
     FROM metric_rollups r WHERE ${c.sql()}`,
    c.params,
  );
  const size = w.bucketSeconds * 1000;
  const buckets = Math.round((w.to - w.from) / size);
  // Per series, one Sums per bucket (index by time), summed over the rollup keys the series holds.
  const bySeries = new Map<string, Sums[]>();
  for (const row of r.rows) {
    let sums = bySeries.get(row.k);
    if (!sums) bySeries.set(row.k, (sums = Array.from({ length: buckets }, emptySums)));
    const t = row.t instanceof Date ? row.t.getTime() : Date.parse(String(row.t));
    const i = Math.round((t - w.from) / size);
    addSums(sums[i], {
      requests: num(row.requests),
      errors: num(row.errors),
      tokens: num(row.tokens),
      costNanoUsd: num(row.cost),
      latency: row.latency,
    });
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
  const c = windowConditions(projectId, w);
  const counts = await db.query<{ hits: unknown; lookups: unknown; fallbacks: unknown }>(
    `SELECT sum(r.cache_hits) AS hits, sum(r.cache_lookups) AS lookups, sum(r.fallbacks) AS fallbacks FROM metric_rollups r WHERE ${c.sql()}`,
    c.params,
  );
  const refusals = await db.query<{ code: string; count: unknown }>(
    `SELECT e.key AS code, sum(e.value::bigint) AS count FROM metric_rollups r, jsonb_each_text(r.refusals) e
     WHERE ${c.sql()} AND r.refusals <> '{}'::jsonb GROUP BY e.key ORDER BY count DESC, code`,
    c.params,
  );
  const hits = num(counts.rows[0]?.hits);
  const lookups = num(counts.rows[0]?.lookups);
  return {
    refusals: refusals.rows.map((row) => ({ code: row.code, count: num(row.count) })),
    cache: { hits, lookups, hitRate: lookups > 0 ? (hits / lookups) * 100 : 0 },
    fallbacks: num(counts.rows[0]?.fallbacks),
  };
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
  const r = await db.query<{ oldest: unknown; newest: unknown }>(
    `SELECT
       (SELECT min(period_start) FROM metric_rollups WHERE project_id = $1 AND period_s = 60 AND period_start >= $2::timestamptz AND requests > 0) AS oldest,
       (SELECT max(period_start) FROM metric_rollups WHERE project_id = $1 AND period_s = 3600 AND period_start >= $3::timestamptz AND requests > 0) AS newest`,
    [
      projectId,
      new Date(namedWindow('24h', now).from).toISOString(),
      new Date(namedWindow('30d', now).from).toISOString(),
    ],
  );
  const ms = (v: unknown) =>
    v === null || v === undefined ? undefined : v instanceof Date ? v.getTime() : Date.parse(String(v));
  return { oldestOfLastDay: ms(r.rows[0]?.oldest), newest: ms(r.rows[0]?.newest) };
}
