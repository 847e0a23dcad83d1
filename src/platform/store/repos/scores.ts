// Scores: written by POST /api/public/scores and ingestion `score-create` events, read and deleted through the public
// API. A repeated id is an upsert that merges as Langfuse merges a repeated score: later values win, absent values keep
// what is stored (a comment given as null clears it), metadata is merged, and id, timestamp, trace and environment
// stay as first written.
import type { Queryable } from '../database.ts';
import { addTagConditions, SCORE_FILTER_COLUMNS } from './filter-columns.ts';
import { conditions, iso, json, num } from './rows.ts';
import { countAhead } from './page.ts';
import { applyFilter, type FilterCondition } from './structured-filter.ts';

export type ScoreDataType = 'NUMERIC' | 'CATEGORICAL' | 'BOOLEAN' | 'TEXT';
export type ScoreSource = 'API' | 'ANNOTATION' | 'EVAL';

export interface ScoreRow {
  projectId: string;
  id: string;
  traceId?: string | null;
  observationId?: string | null;
  sessionId?: string | null;
  datasetRunId?: string | null;
  name: string;
  dataType: ScoreDataType;
  value: number | null;
  stringValue: string | null;
  /** Absent keeps the stored comment; null clears it. */
  comment?: string | null;
  metadata?: Record<string, unknown>;
  source: ScoreSource;
  configId?: string | null;
  queueId?: string | null;
  /** The dashboard user who made an annotation; absent keeps the stored author. */
  authorUserId?: string | null;
  environment: string;
  timestamp: string;
}

export interface StoredScore extends Required<ScoreRow> {
  createdAt: string;
  updatedAt: string;
  /** Fields of the scored trace, when it is stored. */
  trace: {
    name: string | null;
    userId: string | null;
    sessionId: string | null;
    tags: Record<string, string>;
    environment: string;
  } | null;
}

/**
 * Upserts rows in order: an id repeated among them is applied in turn (later values win), since one INSERT … ON
 * CONFLICT statement cannot touch a row twice.
 */
export async function upsertScores(db: Queryable, rows: readonly ScoreRow[]): Promise<void> {
  const rounds: ScoreRow[][] = [];
  const seen = new Map<string, number>();
  for (const row of rows) {
    const round = seen.get(row.id) ?? 0;
    seen.set(row.id, round + 1);
    (rounds[round] ??= []).push(row);
  }
  for (const round of rounds) await upsertDistinctScores(db, round);
}

async function upsertDistinctScores(db: Queryable, rows: readonly ScoreRow[]): Promise<void> {
  const records = rows.map((r) => ({
    project_id: r.projectId,
    id: r.id,
    trace_id: r.traceId ?? null,
    observation_id: r.observationId ?? null,
    session_id: r.sessionId ?? null,
    dataset_run_id: r.datasetRunId ?? null,
    name: r.name,
    data_type: r.dataType,
    value: r.value,
    string_value: r.stringValue,
    comment: r.comment ?? null,
    comment_given: r.comment !== undefined,
    metadata: r.metadata ?? {},
    source: r.source,
    config_id: r.configId ?? null,
    queue_id: r.queueId ?? null,
    author_user_id: r.authorUserId ?? null,
    environment: r.environment,
    timestamp: r.timestamp,
  }));
  await db.query(
    `WITH r AS (
       SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS r(project_id text, id text, trace_id text, observation_id text, session_id text,
         dataset_run_id text, name text, data_type text, value double precision, string_value text, comment text, comment_given boolean,
         metadata jsonb, source text, config_id text, queue_id text, author_user_id text, environment text, timestamp timestamptz)
     )
     INSERT INTO scores (project_id, id, trace_id, observation_id, session_id, dataset_run_id, name, data_type, value, string_value,
       comment, metadata, source, config_id, queue_id, author_user_id, environment, timestamp)
     SELECT project_id, id, trace_id, observation_id, session_id, dataset_run_id, name, data_type, value, string_value,
       comment, metadata, source, config_id, queue_id, author_user_id, environment, timestamp
     FROM r
     ON CONFLICT (project_id, id) DO UPDATE SET
       observation_id = COALESCE(EXCLUDED.observation_id, scores.observation_id),
       session_id = COALESCE(EXCLUDED.session_id, scores.session_id),
       dataset_run_id = COALESCE(EXCLUDED.dataset_run_id, scores.dataset_run_id),
       name = EXCLUDED.name, data_type = EXCLUDED.data_type, value = EXCLUDED.value, string_value = EXCLUDED.string_value,
       comment = CASE WHEN (SELECT r.comment_given FROM r WHERE r.id = EXCLUDED.id) THEN EXCLUDED.comment ELSE scores.comment END,
       metadata = scores.metadata || EXCLUDED.metadata,
       source = EXCLUDED.source,
       config_id = COALESCE(EXCLUDED.config_id, scores.config_id),
       queue_id = COALESCE(EXCLUDED.queue_id, scores.queue_id),
       author_user_id = COALESCE(EXCLUDED.author_user_id, scores.author_user_id),
       updated_at = now()`,
    [json(records)],
  );
}

const SCORES_WITH_TRACE = 'FROM scores s LEFT JOIN traces t ON t.project_id = s.project_id AND t.id = s.trace_id';
const SCORE_SELECT = `SELECT s.*, t.id AS t_id, t.name AS t_name, t.user_id AS t_user_id, t.session_id AS t_session_id, t.tags AS t_tags, t.environment AS t_environment
  ${SCORES_WITH_TRACE}`;

function toScore(r: Record<string, any>): StoredScore {
  return {
    projectId: r.project_id,
    id: r.id,
    traceId: r.trace_id,
    observationId: r.observation_id,
    sessionId: r.session_id,
    datasetRunId: r.dataset_run_id,
    name: r.name,
    dataType: r.data_type,
    value: r.value === null ? null : num(r.value),
    stringValue: r.string_value,
    comment: r.comment,
    metadata: r.metadata ?? {},
    source: r.source,
    configId: r.config_id,
    queueId: r.queue_id,
    authorUserId: r.author_user_id,
    environment: r.environment,
    timestamp: iso(r.timestamp)!,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
    trace:
      r.t_id === null || r.t_id === undefined
        ? null
        : {
            name: r.t_name,
            userId: r.t_user_id,
            sessionId: r.t_session_id,
            tags: r.t_tags ?? {},
            environment: r.t_environment,
          },
  };
}

/** Langfuse's v1 score reads: scores of a trace, not of a session or a dataset run. */
const TRACE_SCORES_ONLY = 's.trace_id IS NOT NULL AND s.session_id IS NULL AND s.dataset_run_id IS NULL';

/** One score; with `traceScoresOnly`, undefined for a session or dataset-run score (Langfuse's v1). */
export async function getScore(
  db: Queryable,
  projectId: string,
  id: string,
  options: { traceScoresOnly?: boolean } = {},
): Promise<StoredScore | undefined> {
  const r = await db.query(
    `${SCORE_SELECT} WHERE s.project_id = $1 AND s.id = $2${options.traceScoresOnly ? ` AND ${TRACE_SCORES_ONLY}` : ''}`,
    [projectId, id],
  );
  return r.rows[0] ? toScore(r.rows[0]) : undefined;
}

export interface ScoreFilter {
  /** Langfuse's v1 lists: trace scores only. */
  traceScoresOnly?: boolean;
  name?: string;
  userId?: string;
  traceId?: string;
  /** Any of these. */
  observationIds?: string[];
  sessionId?: string;
  datasetRunId?: string;
  queueId?: string;
  configId?: string;
  authorUserId?: string;
  source?: ScoreSource;
  dataType?: ScoreDataType;
  scoreIds?: string[];
  environments?: string[];
  /** Tags the scored trace must all have (`k` or `k:v`, as the trace list's `tags`). */
  traceTags?: string[];
  /** Inclusive. */
  from?: string;
  /** Exclusive. */
  to?: string;
  /** Compares the numeric value: `value <operator> value`. */
  value?: { operator: '<' | '>' | '<=' | '>=' | '=' | '!='; value: number };
  /** Langfuse structured filter conditions over SCORE_FILTER_COLUMNS, ANDed with the rest. */
  conditions?: readonly FilterCondition[];
  /** Keyset paging: only scores after this one in the list's order (newest first, ties on id); its time is read from
   * the store while it exists. */
  after?: { timestamp: string; id: string };
  limit: number;
  offset: number;
}

const SCORE_LIST_ORDER = 's.timestamp DESC, s.id DESC';

/** The filter as one SQL condition over SCORES_WITH_TRACE, with its parameters. */
function scoreListCondition(projectId: string, f: ScoreFilter): { condition: string; params: unknown[] } {
  const { add, params, sql } = conditions('s.project_id = $1', projectId);
  if (f.traceScoresOnly) add(() => TRACE_SCORES_ONLY);
  if (f.name) add((p) => `s.name = ${p}`, f.name);
  if (f.userId) add((p) => `t.user_id = ${p}`, f.userId);
  if (f.traceId) add((p) => `s.trace_id = ${p}`, f.traceId);
  if (f.observationIds?.length) add((p) => `s.observation_id = ANY(${p}::text[])`, f.observationIds);
  if (f.sessionId) add((p) => `s.session_id = ${p}`, f.sessionId);
  if (f.datasetRunId) add((p) => `s.dataset_run_id = ${p}`, f.datasetRunId);
  if (f.queueId) add((p) => `s.queue_id = ${p}`, f.queueId);
  if (f.configId) add((p) => `s.config_id = ${p}`, f.configId);
  if (f.authorUserId) add((p) => `s.author_user_id = ${p}`, f.authorUserId);
  if (f.source) add((p) => `s.source = ${p}`, f.source);
  if (f.dataType) add((p) => `s.data_type = ${p}`, f.dataType);
  if (f.scoreIds?.length) add((p) => `s.id = ANY(${p}::text[])`, f.scoreIds);
  if (f.environments?.length) add((p) => `s.environment = ANY(${p}::text[])`, f.environments);
  if (f.traceTags) addTagConditions('t', f.traceTags, add);
  if (f.from) add((p) => `s.timestamp >= ${p}::timestamptz`, f.from);
  if (f.to) add((p) => `s.timestamp < ${p}::timestamptz`, f.to);
  // The operator comes from a fixed list checked by the route schema, never from free text.
  if (f.value) add((p) => `s.value ${f.value!.operator === '!=' ? '<>' : f.value!.operator} ${p}`, f.value.value);
  if (f.conditions) applyFilter(f.conditions, SCORE_FILTER_COLUMNS, add);
  // The stored time of the last score, not the cursor's, which is rounded to milliseconds.
  if (f.after)
    add(
      (t, id) =>
        `(s.timestamp, s.id) < (COALESCE((SELECT a.timestamp FROM scores a WHERE a.project_id = $1 AND a.id = ${id}), ${t}::timestamptz), ${id})`,
      f.after.timestamp,
      f.after.id,
    );
  return { condition: sql(), params };
}

async function scorePage(db: Queryable, condition: string, params: unknown[], f: ScoreFilter): Promise<StoredScore[]> {
  const page = await db.query(
    `${SCORE_SELECT} WHERE ${condition} ORDER BY ${SCORE_LIST_ORDER} LIMIT ${Number(f.limit)} OFFSET ${Number(f.offset)}`,
    params,
  );
  return page.rows.map(toScore);
}

/** Newest first (ties on id), with the total counted ahead. */
export async function listScores(
  db: Queryable,
  projectId: string,
  f: ScoreFilter,
): Promise<{ data: StoredScore[]; total: number }> {
  const { condition, params } = scoreListCondition(projectId, f);
  const matching = `${SCORES_WITH_TRACE} WHERE ${condition}`;
  const total = await countAhead(db, { matching, params, orderBy: SCORE_LIST_ORDER }, f);
  return { data: await scorePage(db, condition, params, f), total };
}

/** Newest first (ties on id), without a count: a keyset page (`after`) says whether more follow by reading one more. */
export async function listScoresWithoutTotal(db: Queryable, projectId: string, f: ScoreFilter): Promise<StoredScore[]> {
  const { condition, params } = scoreListCondition(projectId, f);
  return scorePage(db, condition, params, f);
}

/** The project's score names in order, at most `limit`: one index probe a name (a loose scan), not a read of every score. */
export async function listScoreNames(db: Queryable, projectId: string, limit: number): Promise<string[]> {
  const r = await db.query(
    `WITH RECURSIVE n AS (
       (SELECT name FROM scores WHERE project_id = $1 ORDER BY name LIMIT 1)
       UNION ALL
       SELECT (SELECT s.name FROM scores s WHERE s.project_id = $1 AND s.name > n.name ORDER BY s.name LIMIT 1)
       FROM n WHERE n.name IS NOT NULL
     )
     SELECT name FROM n WHERE name IS NOT NULL LIMIT ${Number(limit)}`,
    [projectId],
  );
  return r.rows.map((row) => row.name as string);
}

/** True when a score was deleted. */
export async function deleteScore(db: Queryable, projectId: string, id: string): Promise<boolean> {
  const r = await db.query('DELETE FROM scores WHERE project_id = $1 AND id = $2', [projectId, id]);
  return r.rowCount > 0;
}

/** Every score of a trace, oldest first (ties on id): the trace detail of the public API. */
export async function listScoresOfTrace(db: Queryable, projectId: string, traceId: string): Promise<StoredScore[]> {
  const r = await db.query(`${SCORE_SELECT} WHERE s.project_id = $1 AND s.trace_id = $2 ORDER BY s.timestamp, s.id`, [
    projectId,
    traceId,
  ]);
  return r.rows.map(toScore);
}
