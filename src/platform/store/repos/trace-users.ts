// The users of a project's traces (traces.user_id; no table of their own), with their totals, for the dashboard's
// users pages.
import type { Queryable } from '../database.ts';
import { COUNT_AHEAD, type PageWindow } from './page.ts';
import { iso, num } from './rows.ts';
import { traceSelect } from './traces.ts';

/** A user of the project's traces and the sums over them. */
export interface TraceUserSummary {
  id: string;
  firstSeen: string;
  /** The latest end (or start, for a trace still running) of its traces. */
  lastSeen: string;
  traceCount: number;
  sessionCount: number;
  tokens: number;
  cost: number;
}

/** One day of a user's traces (UTC). */
export interface TraceUserDay {
  day: string;
  traces: number;
  sessions: number;
  tokens: number;
  cost: number;
}

/**
 * Whether trace `t` is its user's latest (ties on id): one trace per user. Listing these newest first walks the trace
 * time index and looks up each trace's user in traces_project_user_time, stopping at the page's end, where grouping
 * every user of the project to sort them reads the project's whole history (as listSessions does for sessions).
 */
const ENDS_USER = `t.user_id IS NOT NULL AND t.id = (
    SELECT f.id FROM traces f WHERE f.project_id = t.project_id AND f.user_id = t.user_id
    ORDER BY f.start_time DESC, f.id DESC LIMIT 1)`;

/** The sums of these users' traces, by user id; tokens and cost per trace as the trace list sums them. */
export async function summarizeTraceUsers(
  db: Queryable,
  projectId: string,
  ids: readonly string[],
): Promise<Map<string, TraceUserSummary>> {
  if (ids.length === 0) return new Map();
  const r = await db.query<Record<string, any>>(
    `SELECT x.user_id, min(x.start_time) AS first_seen, max(COALESCE(x.end_time, x.start_time)) AS last_seen,
        count(*) AS trace_count, count(DISTINCT x.session_id) AS session_count,
        sum(x.tokens) AS tokens, sum(x.cost) AS cost
      FROM (${traceSelect()} WHERE t.project_id = $1 AND t.user_id = ANY($2::text[])) x
      GROUP BY x.user_id`,
    [projectId, ids],
  );
  return new Map(
    r.rows.map((row) => [
      row.user_id,
      {
        id: row.user_id,
        firstSeen: iso(row.first_seen)!,
        lastSeen: iso(row.last_seen)!,
        traceCount: num(row.trace_count),
        sessionCount: num(row.session_count),
        tokens: num(row.tokens),
        cost: num(row.cost),
      },
    ]),
  );
}

/**
 * The project's distinct trace users, counted up to `bound` by skipping from one user id to the next along
 * traces_project_user_time (one index probe per user), where counting the latest traces of each user along the time
 * index would walk every trace of a project with few users.
 */
async function countTraceUsers(db: Queryable, projectId: string, bound: number): Promise<number> {
  const r = await db.query<{ n: unknown }>(
    `WITH RECURSIVE u(user_id) AS (
        (SELECT t.user_id FROM traces t WHERE t.project_id = $1 AND t.user_id IS NOT NULL ORDER BY t.user_id LIMIT 1)
        UNION ALL
        SELECT (SELECT t.user_id FROM traces t WHERE t.project_id = $1 AND t.user_id > u.user_id
                ORDER BY t.user_id LIMIT 1)
          FROM u WHERE u.user_id IS NOT NULL)
      SELECT count(*) AS n FROM (SELECT 1 FROM u WHERE u.user_id IS NOT NULL LIMIT ${Number(bound)}) c`,
    [projectId],
  );
  return num(r.rows[0]!.n);
}

/** A page of the project's trace users, most recently seen first, with their totals; `total` counted ahead. */
export async function listTraceUsers(
  db: Queryable,
  projectId: string,
  page: PageWindow,
): Promise<{ data: TraceUserSummary[]; total: number }> {
  const bound = Number(page.offset) + COUNT_AHEAD;
  const total = await countTraceUsers(db, projectId, bound);
  // Asking for no more users than remain lets the walk stop at the last one, not read on to the project's first trace;
  // the order is traces_project_time's own, so no sort waits for a tie that never comes.
  const limit = total < bound ? Math.min(Number(page.limit), total - Number(page.offset)) : Number(page.limit);
  if (limit <= 0) return { data: [], total };
  const ids = await db.query<{ user_id: string }>(
    `SELECT t.user_id FROM traces t WHERE t.project_id = $1 AND ${ENDS_USER}
      ORDER BY t.start_time DESC, t.id LIMIT ${limit} OFFSET ${Number(page.offset)}`,
    [projectId],
    { indexOrder: true },
  );
  const order = ids.rows.map((r) => r.user_id);
  const sums = await summarizeTraceUsers(db, projectId, order);
  return { data: order.flatMap((id) => sums.get(id) ?? []), total };
}

/** A user's traces per UTC day, oldest first. */
export async function traceUserDays(db: Queryable, projectId: string, userId: string): Promise<TraceUserDay[]> {
  const r = await db.query<Record<string, any>>(
    `SELECT to_char(x.start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS traces,
        count(DISTINCT x.session_id) AS sessions, sum(x.tokens) AS tokens, sum(x.cost) AS cost
      FROM (${traceSelect()} WHERE t.project_id = $1 AND t.user_id = $2) x
      GROUP BY 1 ORDER BY 1`,
    [projectId, userId],
  );
  return r.rows.map((row) => ({
    day: row.day,
    traces: num(row.traces),
    sessions: num(row.sessions),
    tokens: num(row.tokens),
    cost: num(row.cost),
  }));
}

/** The ids of a user's most recent sessions (by their latest trace of this user), newest first. */
export async function recentSessionsOfUser(
  db: Queryable,
  projectId: string,
  userId: string,
  limit: number,
): Promise<string[]> {
  const r = await db.query<{ session_id: string }>(
    `SELECT t.session_id FROM traces t
      WHERE t.project_id = $1 AND t.user_id = $2 AND t.session_id IS NOT NULL
      GROUP BY t.session_id ORDER BY max(t.start_time) DESC, t.session_id LIMIT ${Number(limit)}`,
    [projectId, userId],
  );
  return r.rows.map((row) => row.session_id);
}
