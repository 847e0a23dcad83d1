// The metric rollups repository (migration 009) and its row types: the trace writer adds rows, one statement per flush,
// to rows already stored (src/gateway/tracing/rollup-flusher.ts); the dashboard reads a window's rows at the window's
// own bucket size (src/observability/metrics/metrics-query.ts).
import type { Histogram } from '../../telemetry/latency-histogram.ts';
import type { Queryable } from '../database.ts';
import { conditions, num } from './rows.ts';

/** Bucket sizes in seconds; the rollups keep every period at each of them (009_metric_rollups.sql). */
export const BUCKET_SECONDS = [60, 900, 3600, 21_600] as const;
export type BucketSeconds = (typeof BUCKET_SECONDS)[number];

/** A row of gateway traffic: one project, period, agent, model group and deployment, and what its requests sum to. */
export interface RollupRow {
  projectId: string;
  periodS: number;
  /** ISO 8601, a multiple of periodS since the epoch. */
  periodStart: string;
  agentId: string;
  modelGroup: string;
  deployment: string;
  requests: number;
  errors: number;
  tokens: number;
  costNanoUsd: number;
  /** Nano-USD per price component (cost.ts keys), from the generations' cost details. */
  costComponents: Record<string, number>;
  latency: Histogram;
  refusals: Record<string, number>;
  cacheHits: number;
  cacheLookups: number;
  fallbacks: number;
}

/** What a stored row sums, as a chart adds it up. */
export interface Sums {
  requests: number;
  errors: number;
  tokens: number;
  costNanoUsd: number;
  latency: Histogram;
}

export const emptySums = (): Sums => ({ requests: 0, errors: 0, tokens: 0, costNanoUsd: 0, latency: {} });

/** The span of a chart: whole buckets of one of the kept sizes. */
export interface MetricWindow {
  /** Inclusive, epoch ms, a bucket boundary. */
  from: number;
  /** Exclusive, epoch ms, a bucket boundary. */
  to: number;
  bucketSeconds: BucketSeconds;
}

/**
 * SQL adding the {"key": count} object `added` into `stored` key by key, walking only `added` (a batch's few keys, not
 * a 6-hour row's many). Written out in the statement: as a SQL function it cost twice as much (not inlinable).
 */
const countsAdd = (stored: string, added: string) =>
  `${stored} || COALESCE((SELECT jsonb_object_agg(k, v::bigint + COALESCE((${stored} ->> k)::bigint, 0)) FROM jsonb_each_text(${added}) AS e(k, v)), '{}'::jsonb)`;

const UPSERT_SQL = `WITH flush AS (INSERT INTO metric_rollup_flushes (id) VALUES ($2) ON CONFLICT DO NOTHING RETURNING id)
  INSERT INTO metric_rollups AS m (project_id, period_s, period_start, agent_id, model_group, deployment,
    requests, errors, tokens, cost_nano_usd, cost_components, latency, refusals, cache_hits, cache_lookups, fallbacks)
  SELECT r.project_id, r.period_s, r.period_start, r.agent_id, r.model_group, r.deployment,
    r.requests, r.errors, r.tokens, r.cost_nano_usd, r.cost_components, r.latency, r.refusals, r.cache_hits,
    r.cache_lookups, r.fallbacks
  FROM ROWS FROM (jsonb_to_recordset($1::text::jsonb) AS (project_id text, period_s integer, period_start timestamptz,
    agent_id text, model_group text, deployment text, requests bigint, errors bigint, tokens bigint, cost_nano_usd bigint,
    cost_components jsonb, latency jsonb, refusals jsonb, cache_hits bigint, cache_lookups bigint, fallbacks bigint))
    WITH ORDINALITY AS r
  WHERE EXISTS (SELECT 1 FROM flush)
  -- In the accumulator's key order, so writers on several replicas lock shared rows in one order (no deadlock).
  ORDER BY r.ordinality
  ON CONFLICT (project_id, period_s, period_start, agent_id, model_group, deployment) DO UPDATE SET
    requests = m.requests + EXCLUDED.requests,
    errors = m.errors + EXCLUDED.errors,
    tokens = m.tokens + EXCLUDED.tokens,
    cost_nano_usd = m.cost_nano_usd + EXCLUDED.cost_nano_usd,
    cost_components = CASE WHEN EXCLUDED.cost_components = '{}'::jsonb THEN m.cost_components
      ELSE ${countsAdd('m.cost_components', 'EXCLUDED.cost_components')} END,
    latency = ${countsAdd('m.latency', 'EXCLUDED.latency')},
    refusals = CASE WHEN EXCLUDED.refusals = '{}'::jsonb THEN m.refusals ELSE ${countsAdd('m.refusals', 'EXCLUDED.refusals')} END,
    cache_hits = m.cache_hits + EXCLUDED.cache_hits,
    cache_lookups = m.cache_lookups + EXCLUDED.cache_lookups,
    fallbacks = m.fallbacks + EXCLUDED.fallbacks`;

/** Adds the rows in one statement, once per `flushId`: the same flush again (a retry) adds nothing. */
export async function upsertRollups(db: Queryable, rows: readonly RollupRow[], flushId: string): Promise<void> {
  if (rows.length === 0) return;
  const records = rows.map((r) => ({
    project_id: r.projectId,
    period_s: r.periodS,
    period_start: r.periodStart,
    agent_id: r.agentId,
    model_group: r.modelGroup,
    deployment: r.deployment,
    requests: r.requests,
    errors: r.errors,
    tokens: r.tokens,
    cost_nano_usd: r.costNanoUsd,
    cost_components: r.costComponents,
    latency: r.latency,
    refusals: r.refusals,
    cache_hits: r.cacheHits,
    cache_lookups: r.cacheLookups,
    fallbacks: r.fallbacks,
  }));
  await db.query(UPSERT_SQL, [JSON.stringify(records), flushId]);
}

export async function pruneFlushes(db: Queryable, olderThanMs: number, now: number): Promise<void> {
  await db.query('DELETE FROM metric_rollup_flushes WHERE applied_at < $1::timestamptz', [
    new Date(now - olderThanMs).toISOString(),
  ]);
}

/** The rollup keys a chart can split its series by, and the cost's price components (series of cost alone). */
export const GROUP_BY = ['agent', 'model_group', 'deployment', 'cost_component'] as const;
export type GroupBy = (typeof GROUP_BY)[number];
const GROUP_COLUMN: Record<Exclude<GroupBy, 'cost_component'>, string> = {
  agent: 'agent_id',
  model_group: 'model_group',
  deployment: 'deployment',
};

export interface RollupFilter {
  /** Agent id, or agent name (every version). */
  agent?: string;
  modelGroup?: string;
  groupBy?: GroupBy;
}

/** A stored rollup row of a window: its period start (epoch ms), its series key and what it sums. */
export interface WindowRollup {
  t: number;
  key: string;
  sums: Sums;
}

/** The WHERE clause of a window's rollups, with `$1` = project. */
function windowConditions(projectId: string, w: MetricWindow) {
  const c = conditions('r.project_id = $1', projectId);
  c.add((p) => `r.period_s = ${p}`, w.bucketSeconds);
  c.add((p) => `r.period_start >= ${p}::timestamptz`, new Date(w.from).toISOString());
  c.add((p) => `r.period_start < ${p}::timestamptz`, new Date(w.to).toISOString());
  return c;
}

const epochMs = (v: unknown): number => (v instanceof Date ? v.getTime() : Date.parse(String(v)));

/** The rows kept at the window's bucket size, keyed by `f.groupBy`'s column (`all` without it). */
export async function windowRollups(
  db: Queryable,
  projectId: string,
  w: MetricWindow,
  f: RollupFilter,
): Promise<WindowRollup[]> {
  const c = windowConditions(projectId, w);
  if (f.agent !== undefined)
    c.add(
      (p) => `(r.agent_id = ${p} OR r.agent_id IN (SELECT id FROM agents WHERE project_id = $1 AND name = ${p}))`,
      f.agent,
    );
  if (f.modelGroup !== undefined) c.add((p) => `r.model_group = ${p}`, f.modelGroup);
  if (f.groupBy === 'cost_component') return componentRollups(db, c);
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
  return r.rows.map((row) => ({
    t: epochMs(row.t),
    key: row.k,
    sums: {
      requests: num(row.requests),
      errors: num(row.errors),
      tokens: num(row.tokens),
      costNanoUsd: num(row.cost),
      latency: row.latency,
    },
  }));
}

/** Per period, the cost of each price component (only `costNanoUsd` of the sums is set). */
async function componentRollups(db: Queryable, c: ReturnType<typeof windowConditions>): Promise<WindowRollup[]> {
  const r = await db.query<{ t: unknown; k: string; cost: unknown }>(
    `SELECT r.period_start AS t, e.key AS k, sum(e.value::bigint) AS cost
     FROM metric_rollups r, jsonb_each_text(r.cost_components) e
     WHERE ${c.sql()} AND r.cost_components <> '{}'::jsonb GROUP BY 1, 2`,
    c.params,
  );
  return r.rows.map((row) => ({ t: epochMs(row.t), key: row.k, sums: { ...emptySums(), costNanoUsd: num(row.cost) } }));
}

export interface WindowGatewayCounts {
  refusals: { code: string; count: number }[];
  cacheHits: number;
  cacheLookups: number;
  fallbacks: number;
}

/** Refusals by code (most first), cache hits and lookups, and fallbacks summed over the window's rows. */
export async function windowGatewayCounts(
  db: Queryable,
  projectId: string,
  w: MetricWindow,
): Promise<WindowGatewayCounts> {
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
  return {
    refusals: refusals.rows.map((row) => ({ code: row.code, count: num(row.count) })),
    cacheHits: num(counts.rows[0]?.hits),
    cacheLookups: num(counts.rows[0]?.lookups),
    fallbacks: num(counts.rows[0]?.fallbacks),
  };
}

/**
 * The start of the oldest minute row with requests since `minutesSince`, and of the newest hour row with requests since
 * `hoursSince` (epoch ms; undefined without any).
 */
export async function trafficPeriods(
  db: Queryable,
  projectId: string,
  since: { minutesSince: number; hoursSince: number },
): Promise<{ oldestMinute?: number; newestHour?: number }> {
  const r = await db.query<{ oldest: unknown; newest: unknown }>(
    `SELECT
       (SELECT min(period_start) FROM metric_rollups WHERE project_id = $1 AND period_s = 60 AND period_start >= $2::timestamptz AND requests > 0) AS oldest,
       (SELECT max(period_start) FROM metric_rollups WHERE project_id = $1 AND period_s = 3600 AND period_start >= $3::timestamptz AND requests > 0) AS newest`,
    [projectId, new Date(since.minutesSince).toISOString(), new Date(since.hoursSince).toISOString()],
  );
  const ms = (v: unknown) => (v === null || v === undefined ? undefined : epochMs(v));
  return { oldestMinute: ms(r.rows[0]?.oldest), newestHour: ms(r.rows[0]?.newest) };
}
