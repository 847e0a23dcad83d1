// Traces: created by the REST API, the gateway's trace writer and ingestion. Tokens and cost of a trace are the sums
// over its observations that carry usage (all but spans and events: generations, embeddings, …), computed when read.
import type { Queryable } from '../database.ts';
import { conditions, iso, json, num } from './rows.ts';
import {
  addTagConditions,
  carriesUsage,
  latencySecondsOf,
  OBSERVATION_FILTER_COLUMNS,
  TRACE_FILTER_COLUMNS,
} from './filter-columns.ts';
import { applyFilter, type FilterCondition } from './structured-filter.ts';

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

const TRACE_COLUMNS: [keyof TraceRow, string, string][] = [
  ['projectId', 'project_id', 'text'],
  ['id', 'id', 'text'],
  ['name', 'name', 'text'],
  ['status', 'status', 'text'],
  ['startTime', 'start_time', 'timestamptz'],
  ['endTime', 'end_time', 'timestamptz'],
  ['input', 'input', 'jsonb'],
  ['output', 'output', 'jsonb'],
  ['metadata', 'metadata', 'jsonb'],
  ['tags', 'tags', 'jsonb'],
  ['userId', 'user_id', 'text'],
  ['sessionId', 'session_id', 'text'],
  ['agentId', 'agent_id', 'text'],
  ['source', 'source', 'text'],
  ['modelGroup', 'model_group', 'text'],
  ['deployment', 'deployment', 'text'],
  ['statusCode', 'status_code', 'integer'],
  ['errorCode', 'error_code', 'text'],
  ['cacheHit', 'cache_hit', 'boolean'],
  ['parentTraceId', 'parent_trace_id', 'text'],
  ['parentSpanId', 'parent_span_id', 'text'],
  ['environment', 'environment', 'text'],
  ['release', 'release', 'text'],
  ['version', 'version', 'text'],
  ['public', 'public', 'boolean'],
];

export interface ObservationRow {
  projectId: string;
  id: string;
  traceId: string;
  parentObservationId?: string | null;
  type: 'SPAN' | 'GENERATION' | 'EVENT' | string;
  name?: string | null;
  startTime: string;
  endTime?: string | null;
  completionStartTime?: string | null;
  status?: string | null;
  level?: string;
  statusMessage?: string | null;
  attributes?: Record<string, unknown>;
  input?: unknown;
  output?: unknown;
  model?: string | null;
  modelParameters?: Record<string, unknown> | null;
  usageDetails?: Record<string, number>;
  costDetails?: Record<string, number>;
  totalTokens?: number;
  totalCost?: number;
  environment?: string;
  version?: string | null;
  promptName?: string | null;
  promptVersion?: number | null;
}

const OBSERVATION_COLUMNS: [keyof ObservationRow, string, string][] = [
  ['projectId', 'project_id', 'text'],
  ['id', 'id', 'text'],
  ['traceId', 'trace_id', 'text'],
  ['parentObservationId', 'parent_observation_id', 'text'],
  ['type', 'type', 'text'],
  ['name', 'name', 'text'],
  ['startTime', 'start_time', 'timestamptz'],
  ['endTime', 'end_time', 'timestamptz'],
  ['completionStartTime', 'completion_start_time', 'timestamptz'],
  ['status', 'status', 'text'],
  ['level', 'level', 'text'],
  ['statusMessage', 'status_message', 'text'],
  ['attributes', 'attributes', 'jsonb'],
  ['input', 'input', 'jsonb'],
  ['output', 'output', 'jsonb'],
  ['model', 'model', 'text'],
  ['modelParameters', 'model_parameters', 'jsonb'],
  ['usageDetails', 'usage_details', 'jsonb'],
  ['costDetails', 'cost_details', 'jsonb'],
  ['totalTokens', 'total_tokens', 'bigint'],
  ['totalCost', 'total_cost', 'double precision'],
  ['environment', 'environment', 'text'],
  ['version', 'version', 'text'],
  ['promptName', 'prompt_name', 'text'],
  ['promptVersion', 'prompt_version', 'integer'],
];

const DEFAULTS: Record<string, unknown> = {
  metadata: {},
  tags: {},
  attributes: {},
  usage_details: {},
  cost_details: {},
  level: 'DEFAULT',
  environment: 'default',
  total_tokens: 0,
  total_cost: 0,
  public: false,
};

/**
 * Inserts many rows in one statement: the batch travels as one JSON parameter expanded by jsonb_to_recordset, so
 * the statement text and parameter count do not grow with the batch. Rows already stored (same project and id)
 * are left as they are, which makes replaying a batch after a failure harmless.
 */
async function insertRows<T>(
  db: Queryable,
  table: string,
  columns: [keyof T, string, string][],
  rows: readonly T[],
): Promise<number> {
  if (rows.length === 0) return 0;
  const r = await db.query(insertSql(table, columns, '$1'), [jsonbText(recordsOf(columns, rows))]);
  return r.rowCount;
}

function recordsOf<T>(columns: [keyof T, string, string][], rows: readonly T[]): Record<string, unknown>[] {
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const [key, column] of columns) {
      const value = (row as Record<string, unknown>)[key as string];
      out[column] = value === undefined ? (DEFAULTS[column] ?? null) : value;
    }
    return out;
  });
}

function insertSql<T>(table: string, columns: [keyof T, string, string][], param: string, replace = false): string {
  const names = columns.map(([, c]) => c).join(', ');
  const defs = columns.map(([, c, type]) => `${c} ${type}`).join(', ');
  const onConflict = replace
    ? `DO UPDATE SET ${columns
        .map(([, c]) => c)
        .filter((c) => c !== 'project_id' && c !== 'id')
        .map((c) => `${c} = EXCLUDED.${c}`)
        .join(', ')}, updated_at = now()`
    : 'DO NOTHING';
  return `INSERT INTO ${table} (${names}) SELECT ${names} FROM jsonb_to_recordset(${param}::text::jsonb) AS r(${defs}) ON CONFLICT (project_id, id) ${onConflict}`;
}

const TRACE_BATCH_SQL = `WITH t AS (${insertSql('traces', TRACE_COLUMNS, '$1')} RETURNING 1),
  o AS (${insertSql('observations', OBSERVATION_COLUMNS, '$2')} RETURNING 1)
  SELECT (SELECT count(*) FROM t) AS traces, (SELECT count(*) FROM o) AS observations`;

/**
 * Traces and their observations in one statement (so all or nothing without a transaction of several round trips,
 * and without holding a pooled connection across them); rows already stored are skipped. Returns the rows inserted.
 */
export async function insertTraceBatch(
  db: Queryable,
  traces: readonly TraceRow[],
  observations: readonly ObservationRow[],
): Promise<{ traces: number; observations: number }> {
  if (traces.length === 0 && observations.length === 0) return { traces: 0, observations: 0 };
  const r = await db.query<{ traces: unknown; observations: unknown }>(TRACE_BATCH_SQL, [
    jsonbText(recordsOf(TRACE_COLUMNS, traces)),
    jsonbText(recordsOf(OBSERVATION_COLUMNS, observations)),
  ]);
  return { traces: num(r.rows[0].traces), observations: num(r.rows[0].observations) };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function storable(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\ufffd');
  if (Array.isArray(value)) return value.map(storable);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[storable(k) as string] = storable(v);
    return out;
  }
  return value;
}

/**
 * JSON text jsonb accepts. JavaScript strings (and the JSON a client sends) may hold U+0000 and unpaired surrogates;
 * jsonb refuses both, and one such character would fail the whole batch on every retry. NULs are dropped and lone
 * surrogates become U+FFFD, in keys and values; the common case pays one regex test.
 */
function jsonbText(value: unknown): string {
  const text = JSON.stringify(value);
  return /\\u0000|\\ud[89a-f]/i.test(text) ? JSON.stringify(storable(JSON.parse(text))) : text;
}

export const insertTraces = (db: Queryable, rows: readonly TraceRow[]) => insertRows(db, 'traces', TRACE_COLUMNS, rows);
export const insertObservations = (db: Queryable, rows: readonly ObservationRow[]) =>
  insertRows(db, 'observations', OBSERVATION_COLUMNS, rows);

/**
 * Writes whole rows, replacing every column of rows already stored (created_at kept): for writers that merged the
 * stored row with their change first (ingestion), under a lock on the ids.
 */
export async function upsertTraceBatch(
  db: Queryable,
  traces: readonly TraceRow[],
  observations: readonly ObservationRow[],
): Promise<void> {
  if (traces.length > 0)
    await db.query(insertSql('traces', TRACE_COLUMNS, '$1', true), [jsonbText(recordsOf(TRACE_COLUMNS, traces))]);
  if (observations.length > 0)
    await db.query(insertSql('observations', OBSERVATION_COLUMNS, '$1', true), [
      jsonbText(recordsOf(OBSERVATION_COLUMNS, observations)),
    ]);
}

/** The stored traces among `ids`. */
export async function getTracesByIds(tx: Queryable, projectId: string, ids: readonly string[]): Promise<StoredTrace[]> {
  if (ids.length === 0) return [];
  const r = await tx.query(`${TRACE_SELECT} WHERE t.project_id = $1 AND t.id = ANY($2::text[])`, [projectId, ids]);
  return r.rows.map(toTrace);
}

const traceSelect = (extraColumns = '') => `SELECT t.*${extraColumns}, a.name AS agent_name,
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
const LINKED_IDS_COLUMNS = `, ARRAY(SELECT o.id FROM observations o WHERE o.project_id = t.project_id AND o.trace_id = t.id ORDER BY o.start_time, o.id) AS observation_ids
  , ARRAY(SELECT s.id FROM scores s WHERE s.project_id = t.project_id AND s.trace_id = t.id ORDER BY s.timestamp, s.id) AS score_ids`;

function toTrace(r: Record<string, any>): StoredTrace {
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
  /** Agent name (spec A1 `agent`). */
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

export async function listTraces(
  db: Queryable,
  projectId: string,
  f: TraceFilter,
): Promise<{ data: StoredTrace[]; total: number }> {
  const { add, params, sql } = conditions('t.project_id = $1', projectId);
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
  if (f.environments?.length) add((p) => `t.environment = ANY(${p}::text[])`, f.environments);
  if (f.release) add((p) => `t.release = ${p}`, f.release);
  if (f.version) add((p) => `t.version = ${p}`, f.version);
  if (f.from) add((p) => `t.start_time >= ${p}::timestamptz`, f.from);
  if (f.to) add((p) => `t.start_time < ${p}::timestamptz`, f.to);
  if (f.conditions) applyFilter(f.conditions, TRACE_FILTER_COLUMNS, add);
  const condition = sql();
  const total = await db.query<{ n: unknown }>(`SELECT count(*) AS n FROM traces t WHERE ${condition}`, params);
  const dir = f.orderBy?.direction === 'asc' ? 'ASC' : 'DESC';
  const order =
    f.orderBy?.column === 'name' ? `t.name ${dir}, t.start_time DESC, t.id DESC` : `t.start_time ${dir}, t.id ${dir}`;
  const linkedIds = f.withLinkedIds ? LINKED_IDS_COLUMNS : '';
  const page = await db.query(
    `${traceSelect(linkedIds)} WHERE ${condition} ORDER BY ${order} LIMIT ${Number(f.limit)} OFFSET ${Number(f.offset)}`,
    params,
  );
  return { data: page.rows.map(toTrace), total: num(total.rows[0].n) };
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

export interface StoredObservation {
  projectId: string;
  id: string;
  traceId: string;
  parentObservationId: string | null;
  type: string;
  name: string | null;
  startTime: string;
  endTime: string | null;
  completionStartTime: string | null;
  status: string | null;
  level: string;
  statusMessage: string | null;
  attributes: Record<string, unknown>;
  input: unknown;
  output: unknown;
  model: string | null;
  modelParameters: Record<string, unknown> | null;
  usageDetails: Record<string, number>;
  costDetails: Record<string, number>;
  totalTokens: number;
  totalCost: number;
  environment: string;
  version: string | null;
  promptName: string | null;
  promptVersion: number | null;
  /** The model whose prices gave the observation's calculated cost (null: none, or the cost came with the event). */
  costModelId: string | null;
  /** The id of the prompt version named by promptName and promptVersion, when it is stored (null otherwise). */
  promptId: string | null;
  createdAt: string;
  updatedAt: string;
}

function toObservation(r: Record<string, any>): StoredObservation {
  return {
    projectId: r.project_id,
    id: r.id,
    traceId: r.trace_id,
    parentObservationId: r.parent_observation_id,
    type: r.type,
    name: r.name,
    startTime: iso(r.start_time)!,
    endTime: iso(r.end_time) ?? null,
    completionStartTime: iso(r.completion_start_time) ?? null,
    status: r.status,
    level: r.level,
    statusMessage: r.status_message,
    attributes: r.attributes ?? {},
    input: r.input,
    output: r.output,
    model: r.model,
    modelParameters: r.model_parameters,
    usageDetails: r.usage_details ?? {},
    costDetails: r.cost_details ?? {},
    totalTokens: num(r.total_tokens),
    totalCost: num(r.total_cost),
    environment: r.environment,
    version: r.version ?? null,
    promptName: r.prompt_name ?? null,
    promptVersion: r.prompt_version ?? null,
    costModelId: r.cost_model_id ?? null,
    promptId: r.prompt_id ?? null,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

/** Observations (aliased `o`) with the id of the prompt version they name (Langfuse's promptId), looked up when read. */
const OBSERVATION_SELECT = `SELECT o.*, pv.id AS prompt_id FROM observations o
  LEFT JOIN prompts pv ON pv.project_id = o.project_id AND pv.name = o.prompt_name AND pv.version = o.prompt_version`;

/** The observations of several traces, in each trace's time order. */
export async function listObservationsOfTraces(
  db: Queryable,
  projectId: string,
  traceIds: readonly string[],
): Promise<StoredObservation[]> {
  if (traceIds.length === 0) return [];
  const r = await db.query(
    `${OBSERVATION_SELECT} WHERE o.project_id = $1 AND o.trace_id = ANY($2::text[]) ORDER BY o.trace_id, o.start_time, o.id`,
    [projectId, traceIds],
  );
  return r.rows.map(toObservation);
}

export const listObservationsOfTrace = (db: Queryable, projectId: string, traceId: string) =>
  listObservationsOfTraces(db, projectId, [traceId]);

/** The stored observations among `ids`. */
export async function getObservationsByIds(
  tx: Queryable,
  projectId: string,
  ids: readonly string[],
): Promise<StoredObservation[]> {
  if (ids.length === 0) return [];
  const r = await tx.query('SELECT * FROM observations WHERE project_id = $1 AND id = ANY($2::text[])', [
    projectId,
    ids,
  ]);
  return r.rows.map(toObservation);
}

export async function getObservation(
  db: Queryable,
  projectId: string,
  id: string,
): Promise<StoredObservation | undefined> {
  const r = await db.query(`${OBSERVATION_SELECT} WHERE o.project_id = $1 AND o.id = $2`, [projectId, id]);
  return r.rows[0] ? toObservation(r.rows[0]) : undefined;
}

export interface ObservationChange {
  endTime?: string;
  status?: string;
  output?: unknown;
}

export async function updateObservation(
  db: Queryable,
  projectId: string,
  id: string,
  c: ObservationChange,
): Promise<StoredObservation | undefined> {
  const r = await db.query(
    `UPDATE observations SET
       end_time = COALESCE($3::timestamptz, end_time),
       status = COALESCE($4, status),
       output = CASE WHEN $5::boolean THEN $6::text::jsonb ELSE output END,
       updated_at = now()
     WHERE project_id = $1 AND id = $2 RETURNING *`,
    [projectId, id, c.endTime ?? null, c.status ?? null, c.output !== undefined, json(c.output)],
  );
  return r.rows[0] ? toObservation(r.rows[0]) : undefined;
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

export interface ObservationFilter {
  traceId?: string;
  name?: string;
  type?: string;
  /** The user of the observation's trace. */
  userId?: string;
  parentObservationId?: string;
  level?: string;
  version?: string;
  /** Any of these environments. */
  environments?: string[];
  /** Inclusive lower bound on start time. */
  from?: string;
  /** Exclusive upper bound on start time. */
  to?: string;
  /** The session of the observation's trace. */
  sessionId?: string;
  /** true: only observations without a parent; false: only those with one. */
  root?: boolean;
  /** Langfuse structured filter conditions over OBSERVATION_FILTER_COLUMNS, ANDed with the rest. */
  conditions?: readonly FilterCondition[];
  /** Keyset paging: only observations after this one in list order (start time, then id, both descending). */
  after?: { startTime: string; id: string };
  /** false: skip counting the total (cursor paging has no use for it); the total is then -1. */
  countTotal?: boolean;
  limit: number;
  offset: number;
}

/**
 * Observations are listed by start time to the millisecond, as the API shows it: a cursor built from a listed
 * start time then resumes exactly where its page ended, whatever finer precision the stored time has.
 */
const OBSERVATION_ORDER_TIME = `date_trunc('milliseconds', o.start_time)`;

/** A page of the project's observations, newest start time first (ties on id), with the total. */
export async function listObservations(
  db: Queryable,
  projectId: string,
  f: ObservationFilter,
): Promise<{ data: StoredObservation[]; total: number }> {
  const { add, params, sql } = conditions('o.project_id = $1', projectId);
  if (f.traceId) add((p) => `o.trace_id = ${p}`, f.traceId);
  if (f.name) add((p) => `o.name = ${p}`, f.name);
  if (f.type) add((p) => `o.type = ${p}`, f.type);
  if (f.userId) add((p) => `o.trace_id IN (SELECT id FROM traces WHERE project_id = $1 AND user_id = ${p})`, f.userId);
  if (f.parentObservationId) add((p) => `o.parent_observation_id = ${p}`, f.parentObservationId);
  if (f.level) add((p) => `o.level = ${p}`, f.level);
  if (f.version) add((p) => `o.version = ${p}`, f.version);
  if (f.environments?.length) add((p) => `o.environment = ANY(${p}::text[])`, f.environments);
  if (f.from) add((p) => `o.start_time >= ${p}::timestamptz`, f.from);
  if (f.to) add((p) => `o.start_time < ${p}::timestamptz`, f.to);
  if (f.sessionId)
    add((p) => `o.trace_id IN (SELECT id FROM traces WHERE project_id = $1 AND session_id = ${p})`, f.sessionId);
  if (f.root !== undefined) add((p) => `(o.parent_observation_id IS NULL) = ${p}::boolean`, f.root);
  if (f.conditions) applyFilter(f.conditions, OBSERVATION_FILTER_COLUMNS, add);
  if (f.after)
    add(
      (t, id) => `(${OBSERVATION_ORDER_TIME}, o.id) < (${t}::timestamptz, ${id}::text)`,
      f.after.startTime,
      f.after.id,
    );
  const condition = sql();
  const total =
    f.countTotal === false
      ? undefined
      : await db.query<{ n: unknown }>(`SELECT count(*) AS n FROM observations o WHERE ${condition}`, params);
  const page = await db.query(
    `${OBSERVATION_SELECT} WHERE ${condition} ORDER BY ${OBSERVATION_ORDER_TIME} DESC, o.id DESC LIMIT ${Number(f.limit)} OFFSET ${Number(f.offset)}`,
    params,
  );
  return { data: page.rows.map(toObservation), total: total ? num(total.rows[0].n) : -1 };
}

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
