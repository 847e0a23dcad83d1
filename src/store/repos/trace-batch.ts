// Writes whole trace and observation rows, many in one statement (the trace writer, ingestion, the REST API).
import type { Queryable } from '../database.ts';
import type { ObservationRow } from './observations.ts';
import { num } from './rows.ts';
import type { TraceRow } from './traces.ts';

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
