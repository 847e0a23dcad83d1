// One ingestion batch (POST /api/public/ingestion): every event checked on its own, the valid ones merged with what is
// stored and written in one transaction, and the 207 answer listing each event as a success or an error. Events of
// one entity (same id and kind) merge in order; should the store still refuse the batch, each entity is written on
// its own so that one failure never costs its neighbours.
import { randomUUID } from 'node:crypto';
import { projectModelMatcher } from '../../platform/pricing/model-cache.ts';
import type { ModelMatcher } from '../../platform/pricing/model-matcher.ts';
import type { Database, Queryable } from '../../platform/store/database.ts';
import { getScoreConfigsByIds } from '../../platform/store/repos/score-configs.ts';
import { upsertScores, type ScoreRow } from '../../platform/store/repos/scores.ts';
import { getTraceRowsByIds, type TraceRow } from '../../platform/store/repos/traces.ts';
import { getObservationsByIds, type ObservationRow } from '../../platform/store/repos/observations.ts';
import { upsertTraceBatch, type MergedRows } from '../../platform/store/repos/trace-batch.ts';
import type { Logger } from '../../platform/telemetry/logger.ts';
import { checkEvent, issueText, type IngestionEvent } from './event-schema.ts';
import { priceObservations } from './generation-cost.ts';
import { mergeObservation, mergeOrder, mergeTrace, observationRowOf, settleTrace } from './merge.ts';
import { scoreRowOf } from './score-input.ts';
import { storableIssues } from './storable-event.ts';

export interface EventSuccess {
  id: string;
  status: 201;
}

export interface EventError {
  id: string;
  status: number;
  message: string;
  error: string;
}

export interface BatchResult {
  successes: EventSuccess[];
  errors: EventError[];
}

const invalid = (id: string, detail: string): EventError => ({
  id,
  status: 400,
  message: `Invalid request data: ${detail}`,
  error: 'InvalidRequestError',
});

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/**
 * Serialises writers of the same entities across requests and replicas (the merge reads, then writes): one
 * transaction-scoped advisory lock per entity, taken in a fixed order so two batches cannot deadlock.
 */
async function lockEntities(tx: Queryable, keys: string[]): Promise<void> {
  const sorted = [...new Set(keys)].sort();
  if (sorted.length === 0) return;
  await tx.query(
    'SELECT count(pg_advisory_xact_lock(hashtext(k))) FROM (SELECT k FROM unnest($1::text[]) AS k ORDER BY k) s',
    [sorted],
  );
}

interface Plan {
  traces: Map<string, IngestionEvent[]>;
  observations: Map<string, IngestionEvent[]>;
  scores: { event: IngestionEvent; row: ScoreRow }[];
}

/**
 * The trace rows a batch writes: each of `traceIds` merged with its events (or made from its observations, when none
 * of its events came), then settled by its observations. A stored trace the batch leaves as it was is not among them.
 */
function tracesToWrite(
  projectId: string,
  traceIds: readonly string[],
  traceEvents: ReadonlyMap<string, IngestionEvent[]>,
  storedTraces: ReadonlyMap<string, TraceRow>,
  observations: readonly ObservationRow[],
): TraceRow[] {
  const observationsOf = groupBy(observations, (o) => o.traceId);
  const traces: TraceRow[] = [];
  for (const traceId of traceIds) {
    const stored = storedTraces.get(traceId);
    const events = traceEvents.get(traceId) ?? [];
    const own = observationsOf.get(traceId) ?? [];
    // An observation before its trace: the trace row is created from it, as Langfuse shows such traces.
    const implicitStart = own.reduce(
      (min, o) => (min === '' || Date.parse(o.startTime) < Date.parse(min) ? o.startTime : min),
      '',
    );
    const base =
      stored ??
      (events.length === 0
        ? {
            projectId,
            id: traceId,
            status: 'completed' as const,
            startTime: implicitStart,
            source: 'ingestion' as const,
            environment: own[0]?.environment,
          }
        : undefined);
    const merged = events.length > 0 ? mergeTrace(projectId, traceId, base, mergeOrder(events)) : base!;
    const settled = settleTrace(merged, own);
    // A stored trace that only its observations touched is rewritten only if they moved its end or status.
    if (merged !== stored || settled.endTime !== stored.endTime || settled.status !== stored.status)
      traces.push(settled);
  }
  return traces;
}

/** Merged rows, as those new to the store and those replacing a stored row. */
function splitByStored<T extends { id: string }>(
  rows: readonly T[],
  stored: ReadonlyMap<string, unknown>,
): MergedRows<T> {
  const split: { fresh: T[]; replacing: T[] } = { fresh: [], replacing: [] };
  for (const row of rows) (stored.has(row.id) ? split.replacing : split.fresh).push(row);
  return split;
}

/** Writes the plan; returns the events refused while merging (an observation without a trace). */
async function write(
  tx: Queryable,
  projectId: string,
  plan: Plan,
  models: ModelMatcher,
): Promise<Map<IngestionEvent, EventError>> {
  const errors = new Map<IngestionEvent, EventError>();
  const observationIds = [...plan.observations.keys()];
  const mentionedTraces = new Set(plan.traces.keys());
  for (const events of plan.observations.values())
    for (const e of events) if (e.body.traceId !== undefined) mentionedTraces.add(e.body.traceId);
  await lockEntities(tx, [
    ...[...mentionedTraces].map((id) => `trace:${projectId}:${id}`),
    ...observationIds.map((id) => `observation:${projectId}:${id}`),
  ]);

  const stored = await getObservationsByIds(tx, projectId, observationIds);
  const storedObservations = new Map(stored.map((o) => [o.id, observationRowOf(o)]));
  const observations: ObservationRow[] = [];
  for (const [id, events] of plan.observations) {
    const row = mergeObservation(projectId, id, storedObservations.get(id), mergeOrder(events));
    if (row.traceId === '') {
      for (const e of events)
        errors.set(e, invalid(e.id, `body.traceId: is required for observation ${id}, which is not stored yet`));
      continue;
    }
    observations.push(row);
  }
  priceObservations(observations, plan.observations, models);
  const traceIds = [...new Set([...plan.traces.keys(), ...observations.map((o) => o.traceId)])];
  // Observations may name a trace this batch did not lock (their stored trace id); lock those too.
  await lockEntities(
    tx,
    traceIds.filter((id) => !mentionedTraces.has(id)).map((id) => `trace:${projectId}:${id}`),
  );
  const storedTraces = new Map((await getTraceRowsByIds(tx, projectId, traceIds)).map((t) => [t.id, t]));
  const traces = tracesToWrite(projectId, traceIds, plan.traces, storedTraces, observations);
  await upsertTraceBatch(tx, splitByStored(traces, storedTraces), splitByStored(observations, storedObservations));
  await upsertScores(
    tx,
    plan.scores.map((s) => s.row),
  );
  return errors;
}

/** Each entity's events as a plan of its own, for writing them one by one. */
function entityPlans(plan: Plan): Plan[] {
  const none = () => ({ traces: new Map(), observations: new Map(), scores: [] });
  return [
    ...[...plan.traces].map(([id, events]) => ({ ...none(), traces: new Map([[id, events]]) })),
    ...[...plan.observations].map(([id, events]) => ({ ...none(), observations: new Map([[id, events]]) })),
    ...plan.scores.map((score) => ({ ...none(), scores: [score] })),
  ];
}

const eventsOf = (plan: Plan): IngestionEvent[] => [
  ...[...plan.traces.values()].flat(),
  ...[...plan.observations.values()].flat(),
  ...plan.scores.map((s) => s.event),
];

/**
 * Writes the plan in one transaction; if the store refuses it, each entity in a transaction of its own. Returns the
 * events refused, each with its error (an entity the store still refuses is a 500, logged once with an error id).
 */
async function writePlan(
  db: Database,
  projectId: string,
  plan: Plan,
  models: ModelMatcher,
  log: Logger,
): Promise<Map<IngestionEvent, EventError>> {
  try {
    return await db.transaction((tx) => write(tx, projectId, plan, models));
  } catch (batchError) {
    log.warn('ingestion batch refused by the store; writing its entities one by one', {
      projectId,
      error: (batchError as Error).message,
    });
  }
  const errors = new Map<IngestionEvent, EventError>();
  for (const one of entityPlans(plan)) {
    try {
      for (const [e, err] of await db.transaction((tx) => write(tx, projectId, one, models))) errors.set(e, err);
    } catch (err) {
      const errorId = randomUUID();
      const events = eventsOf(one);
      log.error('ingestion event failed', {
        errorId,
        projectId,
        events: events.map((e) => e.id),
        error: (err as Error).message,
      });
      for (const e of events)
        errors.set(e, {
          id: e.id,
          status: 500,
          message: `Internal Server Error (error id ${errorId})`,
          error: 'InternalServerError',
        });
    }
  }
  return errors;
}

/**
 * Checks, merges and stores a batch. `fillOnly` (by event id, from the OTel intake) names the trace fields an event
 * gives only as defaults (IngestionEvent.fillOnly).
 */
export async function processBatch(
  db: Database,
  projectId: string,
  batch: readonly unknown[],
  log: Logger,
  fillOnly?: ReadonlyMap<string, readonly string[]>,
): Promise<BatchResult> {
  const errors: EventError[] = [];
  const valid: IngestionEvent[] = [];
  for (const raw of batch) {
    const checked = checkEvent(raw);
    const issues = 'event' in checked ? storableIssues(checked.event) : checked.issues;
    if ('event' in checked && issues.length === 0)
      valid.push(
        fillOnly?.has(checked.event.id)
          ? { ...checked.event, fillOnly: fillOnly.get(checked.event.id) }
          : checked.event,
      );
    else {
      const id = (raw as { id?: unknown } | null)?.id;
      errors.push(invalid(typeof id === 'string' ? id : 'unknown', issueText(issues)));
    }
  }
  // sdk-log events are SDK diagnostics: accepted and dropped, and listed nowhere (as Langfuse does).
  const stored = valid.filter((e) => e.type !== 'sdk-log');
  const plan: Plan = { traces: new Map(), observations: new Map(), scores: [] };
  const accepted: IngestionEvent[] = [];
  const configs = await getScoreConfigsByIds(
    db,
    projectId,
    stored.flatMap((e) => (e.type === 'score-create' && typeof e.body.configId === 'string' ? [e.body.configId] : [])),
  );
  for (const e of stored) {
    if (e.type === 'score-create') {
      const score = scoreRowOf(projectId, e.body, e.timestamp, configs);
      if ('issues' in score)
        errors.push(invalid(e.id, issueText(score.issues.map((i) => ({ ...i, path: ['body', ...i.path] })))));
      else {
        plan.scores.push({ event: e, row: score.row });
        accepted.push(e);
      }
      continue;
    }
    // A trace-create without an id gets one, rather than being listed as a success and dropped.
    if (e.type === 'trace-create') e.body.id ??= randomUUID();
    accepted.push(e);
  }
  plan.traces = groupBy(
    accepted.filter((e) => e.type === 'trace-create'),
    (e) => e.body.id,
  );
  plan.observations = groupBy(
    accepted.filter((e) => e.type !== 'trace-create' && e.type !== 'score-create'),
    (e) => e.body.id,
  );
  // Repeated score ids apply in envelope time order (upsertScores applies rows in turn), as Langfuse sorts them.
  plan.scores.sort((a, b) => Date.parse(a.event.timestamp) - Date.parse(b.event.timestamp));
  // Loaded before the transaction: the embedded store runs one statement at a time.
  const models = await projectModelMatcher(db, projectId);
  const failed = await writePlan(db, projectId, plan, models, log);
  errors.push(...failed.values());
  return { successes: accepted.filter((e) => !failed.has(e)).map((e) => ({ id: e.id, status: 201 as const })), errors };
}
