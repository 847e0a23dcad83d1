// The users of a project's traces (traces.user_id; no table of their own), with their totals, for the dashboard's
// users pages.
import type { Queryable } from '../database.ts';
import { countAhead, type PageWindow } from './page.ts';
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

/** A page of the project's trace users, most recently seen first, with their totals; `total` counted ahead. */
export async function listTraceUsers(
  db: Queryable,
  projectId: string,
  page: PageWindow,
): Promise<{ data: TraceUserSummary[]; total: number }> {
  const matching = `FROM traces t WHERE t.project_id = $1 AND ${ENDS_USER}`;
  const orderBy = 't.start_time DESC, t.user_id DESC';
  const options = { indexOrder: true };
  const params = [projectId];
  const total = await countAhead(db, { matching, params, orderBy, options }, page);
  const ids = await db.query<{ user_id: string }>(
    `SELECT t.user_id ${matching} ORDER BY ${orderBy} LIMIT ${Number(page.limit)} OFFSET ${Number(page.offset)}`,
    params,
    options,
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
