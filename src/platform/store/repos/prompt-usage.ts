// What used a prompt's versions: the observations (generations) ingested with its promptName and promptVersion,
// summed per version, and the newest of one version. Both read the index on (project_id, prompt_name, prompt_version).
import type { Queryable } from '../database.ts';
import { usageSum } from './filter-columns.ts';
import { iso, num } from './rows.ts';

export interface PromptVersionUsage {
  version: number;
  generations: number;
  /** Over the generations that have an end time; null when none has. */
  avgLatencyMs: number | null;
  p50LatencyMs: number | null;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  totalCost: number;
  firstUsedAt: string;
  lastUsedAt: string;
}

export interface PromptGeneration {
  id: string;
  traceId: string;
  name: string | null;
  model: string | null;
  startTime: string;
  latencyMs: number | null;
  totalTokens: number;
  totalCost: number;
  level: string;
}

const LATENCY_MS = 'EXTRACT(EPOCH FROM (o.end_time - o.start_time)) * 1000';

/** One row per version that observations used, newest version first. */
export async function promptVersionUsage(
  db: Queryable,
  projectId: string,
  name: string,
): Promise<PromptVersionUsage[]> {
  const r = await db.query<Record<string, unknown>>(
    `SELECT o.prompt_version AS version, count(*) AS generations,
            avg(${LATENCY_MS}) AS avg_latency_ms,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY ${LATENCY_MS}) AS p50_latency_ms,
            sum(${usageSum('input')}) AS input_tokens, sum(${usageSum('output')}) AS output_tokens,
            sum(o.total_tokens) AS total_tokens, sum(o.total_cost) AS total_cost,
            min(o.start_time) AS first_used_at, max(o.start_time) AS last_used_at
       FROM observations o
      WHERE o.project_id = $1 AND o.prompt_name = $2 AND o.prompt_version IS NOT NULL
      GROUP BY o.prompt_version
      ORDER BY o.prompt_version DESC`,
    [projectId, name],
  );
  const orNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return r.rows.map((x) => ({
    version: num(x.version),
    generations: num(x.generations),
    avgLatencyMs: orNull(x.avg_latency_ms),
    p50LatencyMs: orNull(x.p50_latency_ms),
    inputTokens: num(x.input_tokens),
    outputTokens: num(x.output_tokens),
    totalTokens: num(x.total_tokens),
    totalCost: num(x.total_cost),
    firstUsedAt: iso(x.first_used_at)!,
    lastUsedAt: iso(x.last_used_at)!,
  }));
}

/** The newest `limit` observations that used one version. */
export async function promptVersionGenerations(
  db: Queryable,
  projectId: string,
  at: { name: string; version: number },
  limit: number,
): Promise<PromptGeneration[]> {
  const r = await db.query<Record<string, unknown>>(
    `SELECT o.id, o.trace_id, o.name, o.model, o.start_time, ${LATENCY_MS} AS latency_ms, o.total_tokens, o.total_cost,
            o.level
       FROM observations o
      WHERE o.project_id = $1 AND o.prompt_name = $2 AND o.prompt_version = $3
      ORDER BY o.start_time DESC
      LIMIT $4`,
    [projectId, at.name, at.version, limit],
  );
  return r.rows.map((x) => ({
    id: String(x.id),
    traceId: String(x.trace_id),
    name: (x.name as string | null) ?? null,
    model: (x.model as string | null) ?? null,
    startTime: iso(x.start_time)!,
    latencyMs: x.latency_ms === null ? null : Number(x.latency_ms),
    totalTokens: num(x.total_tokens),
    totalCost: num(x.total_cost),
    level: String(x.level),
  }));
}
