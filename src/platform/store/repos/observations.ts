// Observations (spans, generations, events, …) of traces. Rows are written whole by trace-batch.ts.
import type { Queryable } from '../database.ts';
import { conditions, iso, json, num } from './rows.ts';
import { OBSERVATION_FILTER_COLUMNS } from './filter-columns.ts';
import { countAhead } from './page.ts';
import { addAnyOf, applyFilter, type FilterCondition } from './structured-filter.ts';

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
  /** The model whose prices gave the calculated cost (src/observability/ingestion/generation-cost.ts); null or absent: none. */
  costModelId?: string | null;
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

/**
 * The stored observations among `ids` (the ingestion merge), by one primary-key probe per id. Written as `id =
 * ANY(ids)`, a store without column statistics took the project's rows for few and read them all on every batch.
 */
export async function getObservationsByIds(
  tx: Queryable,
  projectId: string,
  ids: readonly string[],
): Promise<StoredObservation[]> {
  if (ids.length === 0) return [];
  // LIMIT keeps the subquery from being merged into a join the planner could then run as a scan of the project.
  const r = await tx.query(
    `SELECT o.* FROM unnest($2::text[]) AS k(id)
       CROSS JOIN LATERAL (SELECT * FROM observations WHERE project_id = $1 AND id = k.id LIMIT 1) o`,
    [projectId, ids],
  );
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
 * start time then resumes exactly where its page ended, whatever finer precision the stored time has. Taken in UTC,
 * the expression index observations_project_time serves (date_trunc of a timestamptz is not immutable).
 */
const OBSERVATION_ORDER_TIME = `date_trunc('milliseconds', o.start_time AT TIME ZONE 'UTC')`;

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
  if (f.environments?.length) addAnyOf('o.environment', f.environments, add);
  if (f.from) add((p) => `o.start_time >= ${p}::timestamptz`, f.from);
  if (f.to) add((p) => `o.start_time < ${p}::timestamptz`, f.to);
  if (f.sessionId)
    add((p) => `o.trace_id IN (SELECT id FROM traces WHERE project_id = $1 AND session_id = ${p})`, f.sessionId);
  if (f.root !== undefined) add((p) => `(o.parent_observation_id IS NULL) = ${p}::boolean`, f.root);
  if (f.conditions) applyFilter(f.conditions, OBSERVATION_FILTER_COLUMNS, add);
  if (f.after)
    add(
      (t, id) => `(${OBSERVATION_ORDER_TIME}, o.id) < (${t}::timestamptz AT TIME ZONE 'UTC', ${id}::text)`,
      f.after.startTime,
      f.after.id,
    );
  const condition = sql();
  const orderBy = `${OBSERVATION_ORDER_TIME} DESC, o.id DESC`;
  // The observations of given traces are found by trace (observations_trace) and sorted; others in time order.
  const options = { indexOrder: !filtersByTrace(f) };
  const total =
    f.countTotal === false
      ? -1
      : await countAhead(db, { matching: `FROM observations o WHERE ${condition}`, params, orderBy, options }, f);
  const page = await db.query(
    `${OBSERVATION_SELECT} WHERE ${condition} ORDER BY ${orderBy} LIMIT ${Number(f.limit)} OFFSET ${Number(f.offset)}`,
    params,
    options,
  );
  return { data: page.rows.map(toObservation), total };
}

const TRACE_COLUMNS = new Set(['traceId', 'userId', 'sessionId']);

/** Whether the filter names the observations' traces (by id, or by their user or session). */
const filtersByTrace = (f: ObservationFilter) =>
  Boolean(f.traceId || f.userId || f.sessionId || f.conditions?.some((c) => TRACE_COLUMNS.has(c.column)));
