// Langfuse's merge rules for repeated events on one entity (docs/public-api.md "POST /api/public/ingestion", Merge
// rules): creates before updates, each in envelope timestamp order; a later value replaces an earlier one, an absent
// one keeps it; metadata is deep-merged, tags are a union; id, environment and the trace an observation belongs to stay
// as first written. A start time given in a body keeps the earliest value seen, so an update that arrived first (and
// only had its envelope time) is corrected by the create; an envelope time only fills a start never given.
import type { TraceRow } from '../../platform/store/repos/traces.ts';
import type { ObservationRow, StoredObservation } from '../../platform/store/repos/observations.ts';
import { normalizeEnvironment } from './environment.ts';
import type { IngestionEvent } from './event-schema.ts';
import { OBSERVATION_EVENT_TYPES } from './event-schema.ts';
import { costDetailsOf, totalOf, usageDetailsOf } from './usage.ts';
import { isObject } from '../../platform/validation/json-object.ts';

export function deepMerge(base: Record<string, unknown>, change: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(change)) {
    if (v === undefined) continue;
    out[k] = isObject(out[k]) && isObject(v) ? deepMerge(out[k] as Record<string, unknown>, v) : v;
  }
  return out;
}

/** Langfuse metadata may be any JSON value; ours is an object, so other values sit under `metadata`. */
const metadataOf = (v: unknown): Record<string, unknown> => (isObject(v) ? v : { metadata: v });

const earliest = (a: string | undefined, b: string | undefined) =>
  a === undefined ? b : b === undefined ? a : Date.parse(b) < Date.parse(a) ? b : a;
const latest = (a: string | null | undefined, b: string | null | undefined) =>
  a == null ? (b ?? null) : b == null ? a : Date.parse(b) > Date.parse(a) ? b : a;

/** Creates first, then updates, each by envelope timestamp (stable for equal ones). */
export function mergeOrder(events: readonly IngestionEvent[]): IngestionEvent[] {
  const rank = (e: IngestionEvent) => (e.type.endsWith('-update') ? 1 : 0);
  return [...events].sort((a, b) => rank(a) - rank(b) || Date.parse(a.timestamp) - Date.parse(b.timestamp));
}

/** Sets the fields of `body` that are present, under their row names; those in `fillOnly` only where the row has none. */
function assign<R>(
  row: R,
  body: Record<string, any>,
  fields: [string, keyof R][],
  fillOnly: readonly string[] = [],
): void {
  for (const [from, to] of fields) {
    if (body[from] === undefined) continue;
    const current = (row as Record<string, unknown>)[to as string];
    if (fillOnly.includes(from) && current !== undefined && current !== null) continue;
    (row as Record<string, unknown>)[to as string] = body[from];
  }
}

/** The trace after `events` (trace-create, in merge order) on the stored one. */
export function mergeTrace(
  projectId: string,
  id: string,
  stored: TraceRow | undefined,
  events: readonly IngestionEvent[],
): TraceRow {
  const row: TraceRow = stored
    ? { ...stored, metadata: { ...stored.metadata }, tags: { ...stored.tags } }
    : { projectId, id, status: 'completed', startTime: '', source: 'ingestion', metadata: {}, tags: {} };
  let start = stored?.startTime;
  for (const e of events) {
    const b = e.body;
    start = b.timestamp !== undefined ? earliest(start, b.timestamp) : (start ?? e.timestamp);
    assign(
      row,
      b,
      [
        ['name', 'name'],
        ['userId', 'userId'],
        ['sessionId', 'sessionId'],
        ['input', 'input'],
        ['output', 'output'],
        ['release', 'release'],
        ['version', 'version'],
        ['public', 'public'],
      ],
      e.fillOnly,
    );
    if (b.metadata !== undefined) row.metadata = deepMerge(row.metadata ?? {}, metadataOf(b.metadata));
    // Langfuse tags are a list; ours an object, a bare tag being a key with an empty value (admin/public-api/representations.ts tagList).
    // Built as entries so that tags named like Object.prototype members (`__proto__` too) are own keys.
    const added = ((b.tags as string[] | undefined) ?? []).filter((tag) => !Object.hasOwn(row.tags!, tag));
    if (added.length > 0)
      row.tags = Object.fromEntries([...Object.entries(row.tags!), ...added.map((tag) => [tag, ''])]);
    if (!stored && row.environment === undefined) row.environment = normalizeEnvironment(b.environment);
  }
  row.startTime = start!;
  row.environment ??= 'default';
  return row;
}

/** An observation row from a stored one, for merging. */
export function observationRowOf(o: StoredObservation): ObservationRow {
  const { createdAt: _c, updatedAt: _u, promptId: _p, ...row } = o;
  return row;
}

/** The observation after `events` (in merge order) on the stored one; undefined traceId means none was ever given. */
export function mergeObservation(
  projectId: string,
  id: string,
  stored: ObservationRow | undefined,
  events: readonly IngestionEvent[],
): ObservationRow {
  const row: ObservationRow = stored
    ? { ...stored, attributes: { ...stored.attributes } }
    : { projectId, id, traceId: '', type: 'SPAN', startTime: '', attributes: {} };
  let start = stored?.startTime;
  for (const e of events) {
    const b = e.body;
    const type = OBSERVATION_EVENT_TYPES[e.type] || b.type;
    // An update names the kind of event, not a new type: the stored type stays.
    if (!e.type.endsWith('-update') || !stored) row.type = type;
    if (row.traceId === '' && b.traceId !== undefined) row.traceId = b.traceId;
    start = b.startTime !== undefined ? earliest(start, b.startTime) : (start ?? e.timestamp);
    assign(row, b, [
      ['name', 'name'],
      ['parentObservationId', 'parentObservationId'],
      ['endTime', 'endTime'],
      ['completionStartTime', 'completionStartTime'],
      ['input', 'input'],
      ['output', 'output'],
      ['level', 'level'],
      ['statusMessage', 'statusMessage'],
      ['version', 'version'],
      ['model', 'model'],
      ['modelParameters', 'modelParameters'],
      ['promptName', 'promptName'],
      ['promptVersion', 'promptVersion'],
    ]);
    // Langfuse's observation metadata is our span `attributes` (the REST API's free-form span keys).
    if (b.metadata !== undefined) row.attributes = deepMerge(row.attributes ?? {}, metadataOf(b.metadata));
    const usage = usageDetailsOf(b);
    if (usage) row.usageDetails = usage;
    const cost = costDetailsOf(b);
    if (cost) row.costDetails = cost;
    if (!stored && row.environment === undefined && b.environment !== undefined)
      row.environment = normalizeEnvironment(b.environment);
  }
  row.startTime = start!;
  row.environment ??= 'default';
  row.totalTokens = row.usageDetails ? totalOf(row.usageDetails) : 0;
  row.totalCost = row.costDetails ? totalOf(row.costDetails) : 0;
  return row;
}

/** An ingestion trace ends with its last observation and is an error when one of them is. */
export function settleTrace(trace: TraceRow, observations: readonly ObservationRow[]): TraceRow {
  if (trace.source !== 'ingestion') return trace;
  let end = latest(trace.endTime, trace.startTime);
  let status = trace.status;
  for (const o of observations) {
    end = latest(end, o.endTime ?? o.startTime);
    if (o.level === 'ERROR') status = 'error';
  }
  return { ...trace, endTime: end, status };
}
