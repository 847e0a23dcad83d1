// Traces: created by the REST API, the gateway's trace writer and ingestion. Tokens and cost of a trace are the sums
// over its observations that carry usage (all but spans and events: generations, embeddings, …), computed when read.
// Rows are written whole by trace-batch.ts; observations and sessions have their own repositories.
import { isQueryCanceled, type QueryOptions, type Queryable } from '../database.ts';
import { countAhead } from './page.ts';
import { conditions, iso, json, num } from './rows.ts';
import { addTagConditions, carriesUsage, latencySecondsOf, TRACE_FILTER_COLUMNS } from './filter-columns.ts';
import { addAnyOf, applyFilter, type FilterCondition } from './structured-filter.ts';

export type TraceStatus = 'in_progress' | 'completed' | 'error';
export type TraceSource = 'api' | 'gateway' | 'ingestion' | 'otel';

export interface TraceRow {
  projectId: string;
  id: string;
  name?: string | null;
  status: TraceStatus;
  startTime: string;
  endTime?: string | null;
  input?: unknown;
  output?: unknown;
  metadata?: Record<string, unknown>;
  tags?: Record<string, string>;
  userId?: string | null;
  sessionId?: string | null;
  agentId?: string | null;
  source: TraceSource;
  modelGroup?: string | null;
  deployment?: string | null;
  statusCode?: number | null;
  errorCode?: string | null;
  cacheHit?: boolean | null;
  parentTraceId?: string | null;
  parentSpanId?: string | null;
  environment?: string;
  release?: string | null;
  version?: string | null;
  /** Langfuse's `public` flag (ingestion). */
  public?: boolean;
}

/** A stored trace with the values computed on read. */
export interface StoredTrace extends Required<Pick<TraceRow, 'projectId' | 'id' | 'status' | 'startTime' | 'source'>> {
  name: string | null;
  endTime: string | null;
  input: unknown;
  output: unknown;
  metadata: Record<string, unknown>;
  tags: Record<string, string>;
  userId: string | null;
  sessionId: string | null;
  agentId: string | null;
  agentName: string | null;
  modelGroup: string | null;
  deployment: string | null;
  statusCode: number | null;
  errorCode: string | null;
  cacheHit: boolean | null;
  parentTraceId: string | null;
  parentSpanId: string | null;
  environment: string;
  release: string | null;
  version: string | null;
  public: boolean;
  createdAt: string;
  updatedAt: string;
  /** Milliseconds from start to end; null while in progress. */
  durationMs: number | null;
  /** Langfuse's latency: seconds from the earliest observation start to the latest observation end; null without observations. */
  observationLatencySeconds: number | null;
  tokens: number;
  cost: number;
  /** Ids of the trace's observations, by start time; only when the list asked for them. */
  observationIds?: string[];
  scoreIds?: string[];
}

/**
 * `select` (of traces aliased `t`, ending before its WHERE) for each id of $2 in the project $1, by one primary-key
 * probe per id whatever the statistics. As `t.id = ANY($2)`, a store without column statistics took a few hundred
 * ids for most of the project and read all of its traces. LIMIT keeps the subquery from being merged into a join the
 * planner could then run as a scan of the project.
 */
export const eachOfIds = (select: string) => `SELECT t.* FROM unnest($2::text[]) AS k(id)
  CROSS JOIN LATERAL (${select} WHERE t.project_id = $1 AND t.id = k.id LIMIT 1) t`;

/** The stored traces among `ids` (each id once). */
export async function getTracesByIds(tx: Queryable, projectId: string, ids: readonly string[]): Promise<StoredTrace[]> {
  if (ids.length === 0) return [];
  const r = await tx.query(eachOfIds(TRACE_SELECT), [projectId, ids]);
  return r.rows.map(toTrace);
}

/**
 * The stored traces among `ids` as rows (the ingestion merge, which rewrites them whole): none of the values computed
 * on read, and one primary-key probe per id, as getObservationsByIds.
 */
export async function getTraceRowsByIds(tx: Queryable, projectId: string, ids: readonly string[]): Promise<TraceRow[]> {
  if (ids.length === 0) return [];
  const r = await tx.query(eachOfIds('SELECT * FROM traces t'), [projectId, ids]);
  return r.rows.map((row) => {
    const {
      agentName: _a,
      createdAt: _c,
      updatedAt: _u,
      durationMs: _d,
      observationLatencySeconds: _l,
      tokens: _t,
      cost: _k,
      ...trace
    } = toTrace(row);
    return trace;
  });
}

export const traceSelect = (extraColumns = '') => `SELECT t.*${extraColumns}, a.name AS agent_name,
    COALESCE(g.tokens, 0) AS tokens, COALESCE(g.cost, 0) AS cost, g.latency_s
  FROM traces t
  LEFT JOIN agents a ON a.id = t.agent_id
  LEFT JOIN LATERAL (
    SELECT sum(o.total_tokens) FILTER (WHERE ${carriesUsage('o')}) AS tokens, sum(o.total_cost) FILTER (WHERE ${carriesUsage('o')}) AS cost,
      ${latencySecondsOf('o')} AS latency_s
    FROM observations o WHERE o.project_id = t.project_id AND o.trace_id = t.id
  ) g ON true`;
const TRACE_SELECT = traceSelect();
/** The extra columns of `traceSelect` that fill `observationIds` and `scoreIds`. */
export const LINKED_IDS_COLUMNS = `, ARRAY(SELECT o.id FROM observations o WHERE o.project_id = t.project_id AND o.trace_id = t.id ORDER BY o.start_time, o.id) AS observation_ids
  , ARRAY(SELECT s.id FROM scores s WHERE s.project_id = t.project_id AND s.trace_id = t.id ORDER BY s.timestamp, s.id) AS score_ids`;

export function toTrace(r: Record<string, any>): StoredTrace {
  const start = iso(r.start_time)!;
  const end = iso(r.end_time) ?? null;
  return {
    projectId: r.project_id,
    id: r.id,
    name: r.name,
    status: r.status,
    startTime: start,
    endTime: end,
    input: r.input,
    output: r.output,
    metadata: r.metadata ?? {},
    tags: r.tags ?? {},
    userId: r.user_id,
    sessionId: r.session_id,
    agentId: r.agent_id,
    agentName: r.agent_name ?? null,
    source: r.source,
    modelGroup: r.model_group,
    deployment: r.deployment,
    statusCode: r.status_code,
    errorCode: r.error_code,
    cacheHit: r.cache_hit,
    parentTraceId: r.parent_trace_id,
    parentSpanId: r.parent_span_id,
    environment: r.environment,
    release: r.release,
    version: r.version,
    public: r.public ?? false,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
    durationMs: end === null ? null : Date.parse(end) - Date.parse(start),
    observationLatencySeconds: r.latency_s === null || r.latency_s === undefined ? null : Number(r.latency_s),
    tokens: num(r.tokens),
    cost: num(r.cost),
    ...(r.observation_ids ? { observationIds: r.observation_ids } : {}),
    ...(r.score_ids ? { scoreIds: r.score_ids } : {}),
  };
}

export async function getTrace(db: Queryable, projectId: string, id: string): Promise<StoredTrace | undefined> {
  const r = await db.query(`${TRACE_SELECT} WHERE t.project_id = $1 AND t.id = $2`, [projectId, id]);
  return r.rows[0] ? toTrace(r.rows[0]) : undefined;
}

export interface TraceFilter {
  status?: TraceStatus;
  /** Agent name (the `agent` filter of GET /v1/traces, docs/rest-api.md). */
  agentName?: string;
  agentId?: string;
  userId?: string;
  sessionId?: string;
  name?: string;
  /** Case-insensitive part of the name (the dashboard's search box). */
  nameContains?: string;
  /** The model group that served (or was asked for). */
  modelGroup?: string;
  /** Gateway traces called from a span of this trace (their traceparent named it). */
  parentTraceId?: string;
  /** Every listed tag key must be present. */
  tagKeys?: string[];
  /** Public API tag filters, all must match: `k` matches a tag with key k; `k:v` also matches key k holding v. */
  tags?: string[];
  /** Any of these environments. */
  environments?: string[];
  release?: string;
  version?: string;
  /** Inclusive lower bound on start time. */
  from?: string;
  /** Exclusive upper bound on start time. */
  to?: string;
  /** Default: start time, newest first. */
  orderBy?: { column: 'startTime' | 'name'; direction: 'asc' | 'desc' };
  /** Langfuse structured filter conditions over TRACE_FILTER_COLUMNS, ANDed with the rest. */
  conditions?: readonly FilterCondition[];
  /** Fill `observationIds` and `scoreIds` of each trace returned. */
  withLinkedIds?: boolean;
  limit: number;
  offset: number;
}

/** The filters of a trace list, without its order and page. */
export type TraceConditions = Omit<TraceFilter, 'orderBy' | 'withLinkedIds' | 'limit' | 'offset'>;

/** The WHERE clause of a list of the project's traces (aliased `t`) matching `f`; more conditions may be added. */
export function traceWhere(projectId: string, f: TraceConditions) {
  const where = conditions('t.project_id = $1', projectId);
  const { add } = where;
  if (f.status) add((p) => `t.status = ${p}`, f.status);
  if (f.agentId) add((p) => `t.agent_id = ${p}`, f.agentId);
  if (f.agentName)
    add((p) => `t.agent_id IN (SELECT id FROM agents WHERE project_id = $1 AND name = ${p})`, f.agentName);
  if (f.userId) add((p) => `t.user_id = ${p}`, f.userId);
  if (f.sessionId) add((p) => `t.session_id = ${p}`, f.sessionId);
  if (f.name) add((p) => `t.name = ${p}`, f.name);
  if (f.nameContains) add((p) => `strpos(lower(t.name), lower(${p})) > 0`, f.nameContains);
  if (f.modelGroup) add((p) => `t.model_group = ${p}`, f.modelGroup);
  if (f.parentTraceId) add((p) => `t.parent_trace_id = ${p}`, f.parentTraceId);
  if (f.tagKeys?.length) add((p) => `t.tags ?& ${p}::text[]`, f.tagKeys);
  if (f.tags) addTagConditions('t', f.tags, add);
  if (f.environments?.length) addAnyOf('t.environment', f.environments, add);
  if (f.release) add((p) => `t.release = ${p}`, f.release);
  if (f.version) add((p) => `t.version = ${p}`, f.version);
  if (f.from) add((p) => `t.start_time >= ${p}::timestamptz`, f.from);
  if (f.to) add((p) => `t.start_time < ${p}::timestamptz`, f.to);
  if (f.conditions) applyFilter(f.conditions, TRACE_FILTER_COLUMNS, add);
  return where;
}

export async function listTraces(
  db: Queryable,
  projectId: string,
  f: TraceFilter,
  probeMs = TIME_ORDER_PROBE_MS,
): Promise<{ data: StoredTrace[]; total: number }> {
  const { params, sql } = traceWhere(projectId, f);
  const matching = `FROM traces t WHERE ${sql()}`;
  const dir = f.orderBy?.direction === 'asc' ? 'ASC' : 'DESC';
  const order =
    f.orderBy?.column === 'name' ? `t.name ${dir}, t.start_time DESC, t.id DESC` : `t.start_time ${dir}, t.id ${dir}`;
  const read = async (options: QueryOptions) => {
    // One after the other: a list holds one of the pool's connections at a time.
    const total = await countAhead(db, { matching, params, orderBy: order, options }, f);
    const ids = await db.query<{ id: string }>(
      `SELECT t.id ${matching} ORDER BY ${order} LIMIT ${Number(f.limit)} OFFSET ${Number(f.offset)}`,
      params,
      options,
    );
    return { total, ids };
  };
  const { total, ids } = filtersByGinIndex(f)
    ? await probingTimeOrder(read, probeMs)
    : await read({ indexOrder: true });
  if (ids.rows.length === 0) return { data: [], total };
  // The page's rows apart, so its per-trace sums and linked ids are computed for these rows only.
  const page = await db.query(
    `${eachOfIds(traceSelect(f.withLinkedIds ? LINKED_IDS_COLUMNS : ''))} ORDER BY ${order}`,
    [projectId, ids.rows.map((r) => r.id)],
  );
  return { data: page.rows.map(toTrace), total };
}

/** Tags and metadata filters, which only the GIN indexes traces_tags and traces_metadata serve (by bitmap scans). */
export const filtersByGinIndex = (f: TraceConditions) =>
  Boolean(f.tagKeys?.length || f.tags?.length || f.conditions?.some((c) => c.column === 'metadata'));

/**
 * How long a tags or metadata list reads in time order before it takes the GIN index instead. A common value fills a
 * page (and the bounded total) within the first thousands of rows, in a few tens of milliseconds at any store size;
 * the GIN index would collect all of its matches, hundreds of milliseconds per million traces. A value that takes
 * longer than this in time order is rare, and its GIN index finds its few matches at once.
 */
export const TIME_ORDER_PROBE_MS = 250;

/**
 * Reads in time order under a limit of `probeMs`; if that is cancelled, again as the planner chooses (the GIN index
 * of a rare value). Without statistics the planner guesses, so its choice cannot be left to it for common values. On
 * the embedded store, which has no statement time limit, the time order is always read to the end.
 */
export async function probingTimeOrder<T>(read: (options: QueryOptions) => Promise<T>, probeMs: number): Promise<T> {
  try {
    return await read({ indexOrder: true, statementTimeoutMs: probeMs });
  } catch (err) {
    if (!isQueryCanceled(err)) throw err;
    return read({});
  }
}

export interface TraceChange {
  status?: TraceStatus;
  output?: unknown;
  /** Merged into the stored metadata (keys given replace keys stored). */
  metadata?: Record<string, unknown>;
  endTime?: string;
}

/** Applies a change; returns the trace after it, or undefined when there is no such trace. */
export async function updateTrace(
  db: Queryable,
  projectId: string,
  id: string,
  c: TraceChange,
): Promise<StoredTrace | undefined> {
  const r = await db.query(
    `UPDATE traces SET
       status = COALESCE($3, status),
       output = CASE WHEN $4::boolean THEN $5::text::jsonb ELSE output END,
       metadata = metadata || COALESCE($6::text::jsonb, '{}'::jsonb),
       end_time = COALESCE($7::timestamptz, end_time),
       updated_at = now()
     WHERE project_id = $1 AND id = $2`,
    [projectId, id, c.status ?? null, c.output !== undefined, json(c.output), json(c.metadata), c.endTime ?? null],
  );
  return r.rowCount > 0 ? getTrace(db, projectId, id) : undefined;
}

/** Status and times of a trace, its row locked until the transaction ends (status transitions read, then write). */
export async function lockTrace(
  tx: Queryable,
  projectId: string,
  id: string,
): Promise<{ status: TraceStatus; startTime: string; endTime: string | null } | undefined> {
  const r = await tx.query<{ status: TraceStatus; start_time: unknown; end_time: unknown }>(
    'SELECT status, start_time, end_time FROM traces WHERE project_id = $1 AND id = $2 FOR UPDATE',
    [projectId, id],
  );
  const row = r.rows[0];
  return row ? { status: row.status, startTime: iso(row.start_time)!, endTime: iso(row.end_time) ?? null } : undefined;
}

/**
 * One statement deleting the traces whose ids `doomed` selects (a query over $1 = project and its own parameters)
 * with their observations and scores: all or nothing, as Langfuse's trace deletion does.
 */
const deleteTracesAndChildren = (doomed: string) => `WITH doomed AS (${doomed}),
    o AS (DELETE FROM observations WHERE project_id = $1 AND trace_id IN (SELECT id FROM doomed)),
    s AS (DELETE FROM scores WHERE project_id = $1 AND trace_id IN (SELECT id FROM doomed))
  DELETE FROM traces WHERE project_id = $1 AND id IN (SELECT id FROM doomed) RETURNING id`;

/** Deletes these traces with their observations and scores; returns the ids of the traces deleted. */
export async function deleteTraces(db: Queryable, projectId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const r = await db.query<{ id: string }>(deleteTracesAndChildren('SELECT unnest($2::text[]) AS id'), [
    projectId,
    ids,
  ]);
  return r.rows.map((row) => row.id);
}

/**
 * Deletes up to `limit` of the project's traces that started before `before`, oldest first, with their observations
 * and scores (the retention sweep); returns how many traces went.
 */
export async function deleteTracesBefore(
  db: Queryable,
  projectId: string,
  before: Date,
  limit: number,
): Promise<number> {
  const doomed = `SELECT id FROM traces WHERE project_id = $1 AND start_time < $2 ORDER BY start_time LIMIT ${Number(limit)}`;
  const r = await db.query(deleteTracesAndChildren(doomed), [projectId, before]);
  return r.rowCount;
}
