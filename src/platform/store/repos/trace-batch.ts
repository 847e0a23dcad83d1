// Writes whole trace and observation rows, many in one statement (the trace writer, ingestion, the REST API).
// Rows travel as JSON text whose keys are the rows' own field names (jsonb_to_recordset matches them to quoted
// column definitions), so no record is rebuilt per row before serialising it. On the embedded store the trace
// writer's batches go in with COPY instead (docs/decisions.md "Trace batches on the embedded store: COPY").
import type { Queryable } from '../database.ts';
import { bulkLoader } from '../pglite-database.ts';
import type { ObservationRow } from './observations.ts';
import { num } from './rows.ts';
import type { TraceRow } from './traces.ts';

interface Column {
  /** The row's field, and the key in its JSON text. */
  key: string;
  name: string;
  type: string;
  /** Stored for a field absent or null, as Postgres reads it in text. */
  fallback?: string;
}

const column = (key: string, name: string, type: string, fallback?: string): Column => ({ key, name, type, fallback });

const TRACE_COLUMNS: Column[] = [
  column('projectId', 'project_id', 'text'),
  column('id', 'id', 'text'),
  column('name', 'name', 'text'),
  column('status', 'status', 'text'),
  column('startTime', 'start_time', 'timestamptz'),
  column('endTime', 'end_time', 'timestamptz'),
  column('input', 'input', 'jsonb'),
  column('output', 'output', 'jsonb'),
  column('metadata', 'metadata', 'jsonb', '{}'),
  column('tags', 'tags', 'jsonb', '{}'),
  column('userId', 'user_id', 'text'),
  column('sessionId', 'session_id', 'text'),
  column('agentId', 'agent_id', 'text'),
  column('source', 'source', 'text'),
  column('modelGroup', 'model_group', 'text'),
  column('deployment', 'deployment', 'text'),
  column('statusCode', 'status_code', 'integer'),
  column('errorCode', 'error_code', 'text'),
  column('cacheHit', 'cache_hit', 'boolean'),
  column('parentTraceId', 'parent_trace_id', 'text'),
  column('parentSpanId', 'parent_span_id', 'text'),
  column('environment', 'environment', 'text', 'default'),
  column('release', 'release', 'text'),
  column('version', 'version', 'text'),
  column('public', 'public', 'boolean', 'false'),
];

const OBSERVATION_COLUMNS: Column[] = [
  column('projectId', 'project_id', 'text'),
  column('id', 'id', 'text'),
  column('traceId', 'trace_id', 'text'),
  column('parentObservationId', 'parent_observation_id', 'text'),
  column('type', 'type', 'text'),
  column('name', 'name', 'text'),
  column('startTime', 'start_time', 'timestamptz'),
  column('endTime', 'end_time', 'timestamptz'),
  column('completionStartTime', 'completion_start_time', 'timestamptz'),
  column('status', 'status', 'text'),
  column('level', 'level', 'text', 'DEFAULT'),
  column('statusMessage', 'status_message', 'text'),
  column('attributes', 'attributes', 'jsonb', '{}'),
  column('input', 'input', 'jsonb'),
  column('output', 'output', 'jsonb'),
  column('model', 'model', 'text'),
  column('modelParameters', 'model_parameters', 'jsonb'),
  column('usageDetails', 'usage_details', 'jsonb', '{}'),
  column('costDetails', 'cost_details', 'jsonb', '{}'),
  column('totalTokens', 'total_tokens', 'bigint', '0'),
  column('totalCost', 'total_cost', 'double precision', '0'),
  column('environment', 'environment', 'text', 'default'),
  column('version', 'version', 'text'),
  column('promptName', 'prompt_name', 'text'),
  column('promptVersion', 'prompt_version', 'integer'),
  column('costModelId', 'cost_model_id', 'text'),
];

/** What an insert does with a row already stored (same project and id). */
type OnStored = 'skip' | 'replace' | 'fail';

/**
 * Inserts the rows of a JSON array (parameter `param`), expanded by jsonb_to_recordset, so the statement text and
 * parameter count do not grow with the batch. A row already stored is skipped (replaying a batch after a failure is
 * harmless), replaced (every column but created_at), or fails the statement: a plain insert, for rows the caller
 * found absent, spares PostgreSQL ON CONFLICT's speculative insertion (about 15 % of the insert).
 */
function insertSql(table: string, columns: Column[], param: string, onStored: OnStored = 'skip'): string {
  const names = columns.map((c) => c.name).join(', ');
  const values = columns
    .map((c) => (c.fallback === undefined ? `r."${c.key}"` : `COALESCE(r."${c.key}", '${c.fallback}'::${c.type})`))
    .join(', ');
  const defs = columns.map((c) => `"${c.key}" ${c.type}`).join(', ');
  const insert = `INSERT INTO ${table} (${names}) SELECT ${values} FROM jsonb_to_recordset(${param}::text::jsonb) AS r(${defs})`;
  if (onStored === 'fail') return insert;
  if (onStored === 'skip') return `${insert} ON CONFLICT (project_id, id) DO NOTHING`;
  const updates = columns
    .filter((c) => c.name !== 'project_id' && c.name !== 'id')
    .map((c) => `${c.name} = EXCLUDED.${c.name}`)
    .join(', ');
  return `${insert} ON CONFLICT (project_id, id) DO UPDATE SET ${updates}, updated_at = now()`;
}

const TRACE_BATCH_SQL = `WITH t AS (${insertSql('traces', TRACE_COLUMNS, '$1')} RETURNING 1),
  o AS (${insertSql('observations', OBSERVATION_COLUMNS, '$2')} RETURNING 1)
  SELECT (SELECT count(*) FROM t) AS traces, (SELECT count(*) FROM o) AS observations`;

const copySql = (table: string, columns: Column[]) =>
  `COPY ${table} (${columns.map((c) => c.name).join(', ')}) FROM '/dev/blob'`;
const COPY_TRACES = copySql('traces', TRACE_COLUMNS);
const COPY_OBSERVATIONS = copySql('observations', OBSERVATION_COLUMNS);

/** JSON text of a batch's rows: arrays of trace and of observation rows, each made with storableJson. */
export interface TraceBatchJson {
  traces: string;
  observations: string;
}

/**
 * Traces and their observations, all or nothing: on PostgreSQL in one statement (no transaction of several round
 * trips, no pooled connection held across them), on the embedded store as two COPYs in one transaction. Rows already
 * stored are skipped. Returns the rows inserted. `json` gives the rows' JSON text when the caller has it already (the
 * trace writer made it for its journal).
 */
export async function insertTraceBatch(
  db: Queryable,
  traces: readonly TraceRow[],
  observations: readonly ObservationRow[],
  json: () => TraceBatchJson = () => ({ traces: storableJson(traces), observations: storableJson(observations) }),
): Promise<{ traces: number; observations: number }> {
  if (traces.length === 0 && observations.length === 0) return { traces: 0, observations: 0 };
  const loader = bulkLoader(db);
  if (loader) {
    try {
      const [t, o] = await loader.copyFrom([
        { sql: COPY_TRACES, data: copyText(TRACE_COLUMNS, traces) },
        { sql: COPY_OBSERVATIONS, data: copyText(OBSERVATION_COLUMNS, observations) },
      ]);
      return { traces: t, observations: o };
    } catch (err) {
      // COPY cannot skip rows already stored (a replayed batch) and stops at the first row refused: the statement
      // below settles both, and throws what the durable writer needs to find a refused row.
      if (typeof (err as { code?: unknown } | null)?.code !== 'string') throw err;
    }
  }
  const text = json();
  const r = await db.query<{ traces: unknown; observations: unknown }>(TRACE_BATCH_SQL, [
    text.traces,
    text.observations,
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
 * surrogates become U+FFFD, in keys and values.
 */
export function storableJson(value: unknown): string {
  const text = JSON.stringify(value);
  // JSON.stringify writes both as \u escapes: most texts have none, and a substring search is cheaper than the regex.
  return text.includes('\\u') && /\\u0000|\\ud[89a-f]/i.test(text) ? JSON.stringify(storable(JSON.parse(text))) : text;
}

/** Characters COPY's text format gives a meaning to, and U+0000, which no text column holds. */
const COPY_SPECIAL = /[\\\t\n\r\u0000]/;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\u0000': '' };

function copyEscaped(text: string): string {
  return COPY_SPECIAL.test(text) ? text.replace(/[\\\t\n\r\u0000]/g, (c) => COPY_ESCAPES[c]) : text;
}

/**
 * One value in COPY's text format: stored as the JSON path would store it. Lone surrogates need no work here: the
 * UTF-8 encoding of the data replaces them with U+FFFD, as storableJson does.
 */
function copyValue(value: unknown, c: Column): string {
  if (value === null || value === undefined || (typeof value === 'number' && !Number.isFinite(value)))
    return c.fallback ?? '\\N';
  // JSON text escapes every control character, so only its backslashes need doubling.
  if (c.type === 'jsonb') return storableJson(value).replaceAll('\\', '\\\\');
  if (typeof value === 'string') return copyEscaped(value);
  return String(value);
}

/** Rows as COPY's text format reads them: tab-separated values, one row a line. */
function copyText(columns: Column[], rows: readonly object[]): string {
  let out = '';
  for (const row of rows) {
    const r = row as Record<string, unknown>;
    let line = copyValue(r[columns[0].key], columns[0]);
    for (let i = 1; i < columns.length; i++) line += `\t${copyValue(r[columns[i].key], columns[i])}`;
    out += `${line}\n`;
  }
  return out;
}

/** Rows of one table in one statement (the REST API's single rows); returns how many were inserted. */
async function insertRows(db: Queryable, table: string, columns: Column[], rows: readonly object[]): Promise<number> {
  if (rows.length === 0) return 0;
  return (await db.query(insertSql(table, columns, '$1'), [storableJson(rows)])).rowCount;
}

export const insertTraces = (db: Queryable, rows: readonly TraceRow[]) => insertRows(db, 'traces', TRACE_COLUMNS, rows);
export const insertObservations = (db: Queryable, rows: readonly ObservationRow[]) =>
  insertRows(db, 'observations', OBSERVATION_COLUMNS, rows);

/** Rows a merge produced: those the writer found absent from the store, and those replacing a stored row. */
export interface MergedRows<T> {
  fresh: readonly T[];
  replacing: readonly T[];
}

/**
 * Writes whole rows for writers that merged the stored rows with their change first (ingestion), under a lock on
 * the ids: fresh rows are plainly inserted, so a row another writer stored since the lookup fails the statement
 * (the caller writes again after a new lookup) rather than being overwritten; replacing rows overwrite every column
 * (created_at kept).
 */
export async function upsertTraceBatch(
  db: Queryable,
  traces: MergedRows<TraceRow>,
  observations: MergedRows<ObservationRow>,
): Promise<void> {
  for (const [table, columns, rows] of [
    ['traces', TRACE_COLUMNS, traces],
    ['observations', OBSERVATION_COLUMNS, observations],
  ] as const) {
    if (rows.fresh.length > 0) await db.query(insertSql(table, columns, '$1', 'fail'), [storableJson(rows.fresh)]);
    if (rows.replacing.length > 0)
      await db.query(insertSql(table, columns, '$1', 'replace'), [storableJson(rows.replacing)]);
  }
}
