// Sessions with their totals, for the dashboard's sessions list: the page of sessions is found as the public API finds
// it (listSessions, each session's first trace along the trace time index), then only that page's sessions are summed.
import type { Queryable } from '../database.ts';
import { iso, num } from './rows.ts';
import { listSessions, type SessionFilter } from './sessions.ts';
import { traceSelect } from './traces.ts';

/** A session and the sums over its traces. */
export interface SessionSummary {
  id: string;
  environment: string;
  /** The start of its first trace. */
  firstSeen: string;
  /** The latest end (or start, for a trace still running) of its traces. */
  lastSeen: string;
  traceCount: number;
  tokens: number;
  cost: number;
  /** The sum of its traces' durations (end − start), in ms; traces still running count nothing. */
  latencyMs: number;
  /** The user of its first trace that names one. */
  userId: string | null;
  /** Every distinct user of its traces (a session is usually one user's). */
  userIds: string[];
}

/**
 * The sums of these sessions' traces, by session id. The per-trace tokens and cost come from traceSelect, so they are
 * summed as the trace list sums them (observations that carry usage).
 */
export async function summarizeSessions(
  db: Queryable,
  projectId: string,
  ids: readonly string[],
): Promise<Map<string, Omit<SessionSummary, 'environment'>>> {
  if (ids.length === 0) return new Map();
  const r = await db.query<Record<string, any>>(
    `SELECT x.session_id, min(x.start_time) AS first_seen, max(COALESCE(x.end_time, x.start_time)) AS last_seen,
        count(*) AS trace_count, sum(x.tokens) AS tokens, sum(x.cost) AS cost,
        sum(EXTRACT(EPOCH FROM (x.end_time - x.start_time)) * 1000) AS latency_ms,
        (array_agg(x.user_id ORDER BY x.start_time, x.id) FILTER (WHERE x.user_id IS NOT NULL))[1] AS user_id,
        COALESCE(array_agg(DISTINCT x.user_id) FILTER (WHERE x.user_id IS NOT NULL), '{}') AS user_ids
      FROM (${traceSelect()} WHERE t.project_id = $1 AND t.session_id = ANY($2::text[])) x
      GROUP BY x.session_id`,
    [projectId, ids],
  );
  return new Map(
    r.rows.map((row) => [
      row.session_id,
      {
        id: row.session_id,
        firstSeen: iso(row.first_seen)!,
        lastSeen: iso(row.last_seen)!,
        traceCount: num(row.trace_count),
        tokens: num(row.tokens),
        cost: num(row.cost),
        latencyMs: Math.round(num(row.latency_ms)),
        userId: row.user_id ?? null,
        userIds: row.user_ids,
      },
    ]),
  );
}

/** A page of the project's sessions, newest first, each with its totals; `total` counted ahead as listSessions does. */
export async function listSessionSummaries(
  db: Queryable,
  projectId: string,
  f: SessionFilter,
): Promise<{ data: SessionSummary[]; total: number }> {
  const { data, total } = await listSessions(db, projectId, f);
  const sums = await summarizeSessions(
    db,
    projectId,
    data.map((s) => s.id),
  );
  return {
    data: data.flatMap((s) => {
      const sum = sums.get(s.id);
      return sum ? [{ ...sum, environment: s.environment }] : [];
    }),
    total,
  };
}
