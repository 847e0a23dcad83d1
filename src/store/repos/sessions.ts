// Sessions: no table of their own, the distinct session ids of a project's traces.
import type { Queryable } from '../database.ts';
import { conditions, iso, num } from './rows.ts';
import { LINKED_IDS_COLUMNS, toTrace, traceSelect, type StoredTrace } from './traces.ts';

/** A session: a distinct session id of the project's traces; created when its first trace started. */
export interface StoredSession {
  projectId: string;
  id: string;
  createdAt: string;
  /** The environment of its first trace. */
  environment: string;
}

export interface SessionFilter {
  /** Inclusive lower bound on createdAt. */
  from?: string;
  /** Exclusive upper bound on createdAt. */
  to?: string;
  /** Any of these environments. */
  environments?: string[];
  limit: number;
  offset: number;
}

const SESSIONS_SQL = `SELECT t.project_id, t.session_id AS id, min(t.start_time) AS created_at,
    (array_agg(t.environment ORDER BY t.start_time, t.id))[1] AS environment
  FROM traces t WHERE t.project_id = $1 AND t.session_id IS NOT NULL`;

const toSession = (r: Record<string, any>): StoredSession => ({
  projectId: r.project_id,
  id: r.id,
  createdAt: iso(r.created_at)!,
  environment: r.environment,
});

/** A page of the project's sessions, newest first (ties on id), with the total. */
export async function listSessions(
  db: Queryable,
  projectId: string,
  f: SessionFilter,
): Promise<{ data: StoredSession[]; total: number }> {
  const { add, params, sql } = conditions('s.project_id = $1', projectId);
  if (f.from) add((p) => `s.created_at >= ${p}::timestamptz`, f.from);
  if (f.to) add((p) => `s.created_at < ${p}::timestamptz`, f.to);
  if (f.environments?.length) add((p) => `s.environment = ANY(${p}::text[])`, f.environments);
  const from = `FROM (${SESSIONS_SQL} GROUP BY t.project_id, t.session_id) s WHERE ${sql()}`;
  const total = await db.query<{ n: unknown }>(`SELECT count(*) AS n ${from}`, params);
  const page = await db.query(
    `SELECT s.* ${from} ORDER BY s.created_at DESC, s.id DESC LIMIT ${Number(f.limit)} OFFSET ${Number(f.offset)}`,
    params,
  );
  return { data: page.rows.map(toSession), total: num(total.rows[0].n) };
}

/** One session with its traces (oldest first, each with its observation ids), or undefined when no trace has the id. */
export async function getSession(
  db: Queryable,
  projectId: string,
  id: string,
): Promise<(StoredSession & { traces: StoredTrace[] }) | undefined> {
  const s = await db.query(`${SESSIONS_SQL} AND t.session_id = $2 GROUP BY t.project_id, t.session_id`, [
    projectId,
    id,
  ]);
  if (!s.rows[0]) return undefined;
  const traces = await db.query(
    `${traceSelect(LINKED_IDS_COLUMNS)} WHERE t.project_id = $1 AND t.session_id = $2 ORDER BY t.start_time, t.id`,
    [projectId, id],
  );
  return { ...toSession(s.rows[0]), traces: traces.rows.map(toTrace) };
}
