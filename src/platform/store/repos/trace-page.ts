// The dashboard's trace list: ordered by start time, latency (the trace's duration) or cost, either way, and paged by
// keyset on (order value, id), so a page deep in the list reads what the first one does. Filters on the trace row
// (and the latency bounds) read the list's indexes; the filters and the order computed from observations (level,
// cost) rank the newest RANKED_TRACES traces matching the rest (docs/decisions.md "Trace list order and filters").
import type { QueryOptions, Queryable } from '../database.ts';
import { carriesUsage } from './filter-columns.ts';
import { COUNT_AHEAD, countAhead } from './page.ts';
import type { AddCondition } from './rows.ts';
import {
  eachOfIds,
  filtersByGinIndex,
  probingTimeOrder,
  TIME_ORDER_PROBE_MS,
  toTrace,
  traceSelect,
  traceWhere,
  type StoredTrace,
  type TraceConditions,
} from './traces.ts';

export type TraceOrder = 'time' | 'latency' | 'cost';
/** ERROR: an ERROR observation, or the trace ended in error; WARNING: that, or a WARNING observation. */
export type TraceLevel = 'ERROR' | 'WARNING';

export interface TracePageQuery extends TraceConditions {
  order: TraceOrder;
  direction: 'asc' | 'desc';
  level?: TraceLevel;
  minLatencyMs?: number;
  maxLatencyMs?: number;
  minCost?: number;
  maxCost?: number;
  /** The page after this cursor (a page's `next`), or before it (a page's `previous`); else the page at `offset`. */
  after?: string;
  before?: string;
  limit: number;
  /** How many rows precede the page: skipped when no cursor is given; the total is counted up to offset + COUNT_AHEAD. */
  offset: number;
}

export interface TracePage {
  data: StoredTrace[];
  total: number;
  totalIsLowerBound: boolean;
  /** Cursors of the pages after and before this one; null at either end. */
  next: string | null;
  previous: string | null;
  /** Set when the level, cost filters or cost order ranked only the newest RANKED_TRACES matching traces. */
  rankedNewest?: number;
}

/** How many of the newest matching traces a cost order or a level or cost filter ranks (each summed from observations). */
export const RANKED_TRACES = 10_000;

/** The order value of a trace aliased `t`, and the type its cursor's text is read back as. */
const KEYS: Record<TraceOrder, { sql: string; type: string }> = {
  time: { sql: 't.start_time', type: 'timestamptz' },
  latency: { sql: '(t.end_time - t.start_time)', type: 'interval' },
  cost: { sql: 't.cost', type: 'float8' },
};

interface Cursor {
  value: string;
  id: string;
}

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify([c.value, c.id])).toString('base64url');

/** A cursor this module made, or undefined for anything else. */
export function decodeCursor(text: string): Cursor | undefined {
  try {
    const v = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    return Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'string')
      ? { value: v[0], id: v[1] }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Filters with an index of their own in time order. With a latency order they leave the plan to the planner: a
 * user's or a session's traces are few beside the project's, found through that index and sorted, where the latency
 * index would be walked past every other trace to find them.
 */
const narrowsByIndex = (q: TracePageQuery) =>
  Boolean(q.userId || q.sessionId || q.name || q.agentId || q.agentName || q.parentTraceId);

const ranksObservations = (q: TracePageQuery) =>
  q.order === 'cost' || q.level !== undefined || q.minCost !== undefined || q.maxCost !== undefined;

/** The latency bounds and order, on the trace row. */
function addLatencyConditions(q: TracePageQuery, add: AddCondition) {
  if (q.order === 'latency') add(() => 't.end_time IS NOT NULL');
  if (q.minLatencyMs !== undefined) add((p) => `t.end_time - t.start_time >= ${p} * interval '1 ms'`, q.minLatencyMs);
  if (q.maxLatencyMs !== undefined) add((p) => `t.end_time - t.start_time <= ${p} * interval '1 ms'`, q.maxLatencyMs);
}

/** The level and cost filters, over the ranked traces' sums. */
function addRankedConditions(q: TracePageQuery, add: AddCondition) {
  if (q.level === 'ERROR') add(() => "(t.errors OR t.status = 'error')");
  if (q.level === 'WARNING') add(() => "(t.errors OR t.warnings OR t.status = 'error')");
  if (q.minCost !== undefined) add((p) => `t.cost >= ${p}`, q.minCost);
  if (q.maxCost !== undefined) add((p) => `t.cost <= ${p}`, q.maxCost);
}

/**
 * The CTEs ranking the newest RANKED_TRACES traces matching `rowWhere`: `recent`, and `t` with each one's cost and
 * whether it has ERROR and WARNING observations.
 */
const rankedTraces = (rowWhere: string) => `WITH recent AS (
    SELECT t.id, t.start_time, t.end_time, t.status FROM traces t WHERE ${rowWhere}
    ORDER BY t.start_time DESC, t.id DESC LIMIT ${RANKED_TRACES}
  ), t AS (
    SELECT r.*, COALESCE(g.cost, 0) AS cost, COALESCE(g.errors, false) AS errors, COALESCE(g.warnings, false) AS warnings
    FROM recent r LEFT JOIN LATERAL (
      SELECT sum(o.total_cost) FILTER (WHERE ${carriesUsage('o')}) AS cost,
        bool_or(o.level = 'ERROR') AS errors, bool_or(o.level = 'WARNING') AS warnings
      FROM observations o WHERE o.project_id = $1 AND o.trace_id = r.id
    ) g ON true
  )`;

export async function listTracePage(
  db: Queryable,
  projectId: string,
  q: TracePageQuery,
  probeMs = TIME_ORDER_PROBE_MS,
): Promise<TracePage> {
  const where = traceWhere(projectId, q);
  addLatencyConditions(q, where.add);
  const ranked = ranksObservations(q);
  const derived: string[] = [];
  const addDerived: AddCondition = (clause, ...values) =>
    derived.push(clause(...values.map((v) => `$${where.params.push(v)}`)));
  let prefix = '';
  let matching = `FROM traces t WHERE ${where.sql()}`;
  if (ranked) {
    prefix = rankedTraces(where.sql());
    addRankedConditions(q, addDerived);
    matching = `FROM t WHERE ${derived.join(' AND ') || 'true'}`;
  }
  const key = KEYS[q.order];
  const order = (dir: 'asc' | 'desc') => `${key.sql} ${dir}, t.id ${dir}`;
  const listed = q.direction;
  const countParams = [...where.params];
  const cursor = q.after ?? q.before;
  const decoded = cursor === undefined ? undefined : decodeCursor(cursor);
  const backwards = q.after === undefined && decoded !== undefined;
  const readDir = backwards ? (listed === 'asc' ? 'desc' : 'asc') : listed;
  let keyset = '';
  if (decoded) {
    const params = where.params;
    const v = `$${params.push(decoded.value)}`;
    const id = `$${params.push(decoded.id)}`;
    keyset = ` AND (${key.sql}, t.id) ${readDir === 'asc' ? '>' : '<'} (${v}::${key.type}, ${id})`;
  }
  const read = async (options: QueryOptions) => {
    const total = ranked
      ? await rankedCount(db, prefix, matching, countParams, options)
      : {
          n: await countAhead(db, { matching, params: countParams, orderBy: order(listed), options }, q),
          candidates: 0,
        };
    const rows = await db.query<{ id: string; k: string }>(
      `${prefix} SELECT t.id, ${key.sql}::text AS k ${matching}${keyset} ORDER BY ${order(readDir)} LIMIT ${Number(q.limit) + 1} OFFSET ${decoded ? 0 : Number(q.offset)}`,
      where.params,
      options,
    );
    return { total, rows: rows.rows };
  };
  const { total, rows } = filtersByGinIndex(q)
    ? await probingTimeOrder(read, probeMs)
    : await read({ indexOrder: q.order !== 'latency' || !narrowsByIndex(q) });
  // Back at the start: the first page, whole.
  if (backwards && rows.length <= q.limit)
    return listTracePage(db, projectId, { ...q, before: undefined, offset: 0 }, probeMs);
  const more = rows.length > q.limit;
  const shown = rows.slice(0, q.limit);
  if (backwards) shown.reverse();
  const first = shown[0];
  const last = shown.at(-1);
  const page: TracePage = {
    data: await pageRows(
      db,
      projectId,
      shown.map((r) => r.id),
      order(listed),
    ),
    total: total.n,
    totalIsLowerBound: !ranked && total.n >= q.offset + COUNT_AHEAD,
    next: last && (backwards || more) ? encodeCursor({ value: last.k, id: last.id }) : null,
    previous:
      first && (backwards ? more : decoded !== undefined || q.offset > 0)
        ? encodeCursor({ value: first.k, id: first.id })
        : null,
  };
  if (ranked && total.candidates >= RANKED_TRACES) page.rankedNewest = RANKED_TRACES;
  return page;
}

/** How many ranked traces match, and how many were ranked. */
async function rankedCount(
  db: Queryable,
  prefix: string,
  matching: string,
  params: readonly unknown[],
  options: QueryOptions,
) {
  const r = await db.query<{ n: unknown; candidates: unknown }>(
    `${prefix} SELECT count(*) AS n, (SELECT count(*) FROM recent) AS candidates ${matching}`,
    params,
    options,
  );
  return { n: Number(r.rows[0].n), candidates: Number(r.rows[0].candidates) };
}

/** The page's traces with their sums, computed for these rows only, in the list's order. */
async function pageRows(db: Queryable, projectId: string, ids: string[], order: string): Promise<StoredTrace[]> {
  if (ids.length === 0) return [];
  const r = await db.query(`${eachOfIds(traceSelect())} ORDER BY ${order}`, [projectId, ids]);
  return r.rows.map(toTrace);
}
