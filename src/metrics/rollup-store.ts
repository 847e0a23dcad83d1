// Writes rollup rows: one statement per flush, adding counts and histograms to rows already stored.
import type { Queryable } from '../store/database.ts';
import type { RollupRow } from './rollup-accumulator.ts';

/**
 * SQL adding the {"key": count} object `added` into `stored` key by key, walking only `added` (a batch's few keys, not
 * a 6-hour row's many). Written out in the statement: as a SQL function it cost twice as much (not inlinable).
 */
const countsAdd = (stored: string, added: string) =>
  `${stored} || COALESCE((SELECT jsonb_object_agg(k, v::bigint + COALESCE((${stored} ->> k)::bigint, 0)) FROM jsonb_each_text(${added}) AS e(k, v)), '{}'::jsonb)`;

const UPSERT_SQL = `WITH flush AS (INSERT INTO metric_rollup_flushes (id) VALUES ($2) ON CONFLICT DO NOTHING RETURNING id)
  INSERT INTO metric_rollups AS m (project_id, period_s, period_start, agent_id, model_group, deployment,
    requests, errors, tokens, cost_nano_usd, latency, refusals, cache_hits, cache_lookups, fallbacks)
  SELECT r.project_id, r.period_s, r.period_start, r.agent_id, r.model_group, r.deployment,
    r.requests, r.errors, r.tokens, r.cost_nano_usd, r.latency, r.refusals, r.cache_hits, r.cache_lookups, r.fallbacks
  FROM ROWS FROM (jsonb_to_recordset($1::text::jsonb) AS (project_id text, period_s integer, period_start timestamptz,
    agent_id text, model_group text, deployment text, requests bigint, errors bigint, tokens bigint, cost_nano_usd bigint,
    latency jsonb, refusals jsonb, cache_hits bigint, cache_lookups bigint, fallbacks bigint)) WITH ORDINALITY AS r
  WHERE EXISTS (SELECT 1 FROM flush)
  -- In the accumulator's key order, so writers on several replicas lock shared rows in one order (no deadlock).
  ORDER BY r.ordinality
  ON CONFLICT (project_id, period_s, period_start, agent_id, model_group, deployment) DO UPDATE SET
    requests = m.requests + EXCLUDED.requests,
    errors = m.errors + EXCLUDED.errors,
    tokens = m.tokens + EXCLUDED.tokens,
    cost_nano_usd = m.cost_nano_usd + EXCLUDED.cost_nano_usd,
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
