// Sessions: no table of their own, the distinct session ids of a project's traces.
import type { Queryable } from '../database.ts';
import { countAhead } from './page.ts';
import { conditions, iso } from './rows.ts';
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

/**
 * Whether trace `t` begins its session (the session's first trace by start time, ties on id): one trace per session,
 * holding its createdAt and environment. Listing these newest first walks the trace time index, looking up each
 * trace's session in traces_project_session_time (a correlated subquery, so always one index probe per trace), and
 * stops at the page's end, where grouping every session of the project to sort them took seconds at millions of
 * traces.
 */
const BEGINS_SESSION = `t.session_id IS NOT NULL AND t.id = (
    SELECT f.id FROM traces f WHERE f.project_id = t.project_id AND f.session_id = t.session_id
    ORDER BY f.start_time, f.id LIMIT 1)`;

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
  const { add, params, sql } = conditions('t.project_id = $1', projectId);
  add(() => BEGINS_SESSION);
  if (f.from) add((p) => `t.start_time >= ${p}::timestamptz`, f.from);
  if (f.to) add((p) => `t.start_time < ${p}::timestamptz`, f.to);
  if (f.environments?.length) add((p) => `t.environment = ANY(${p}::text[])`, f.environments);
  const matching = `FROM traces t WHERE ${sql()}`;
  const orderBy = 't.start_time DESC, t.session_id DESC';
  const options = { indexOrder: true };
  const total = await countAhead(db, { matching, params, orderBy, options }, f);
  const page = await db.query(
    `SELECT t.project_id, t.session_id AS id, t.start_time AS created_at, t.environment ${matching}
        ORDER BY ${orderBy} LIMIT ${Number(f.limit)} OFFSET ${Number(f.offset)}`,
    params,
    options,
  );
  return { data: page.rows.map(toSession), total };
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
