// The gateway calls an agent trace's spans made: gateway traces whose W3C traceparent named the agent trace (their
// parent_trace_id) and the span that called (parent_span_id). The public API folds them into the agent trace, so its
// cost and observations agree with the dashboard's trace page (docs/public-api.md).
import type { Queryable } from '../database.ts';
import { carriesUsage } from './filter-columns.ts';
import { listObservationsOfTraces, type StoredObservation } from './observations.ts';
import { num } from './rows.ts';
import type { StoredTrace } from './traces.ts';

export interface LinkedGatewayTotals {
  cost: number;
  tokens: number;
  /** The linked calls' observation ids, by start time. */
  observationIds: string[];
}

/**
 * The linked calls' totals of each of `traceIds` (a list's page) in one grouped query, by the index on
 * (project_id, parent_trace_id); a trace without linked calls has no entry.
 */
export async function linkedGatewayTotals(
  db: Queryable,
  projectId: string,
  traceIds: readonly string[],
): Promise<Map<string, LinkedGatewayTotals>> {
  if (traceIds.length === 0) return new Map();
  const r = await db.query<{ trace_id: string; cost: unknown; tokens: unknown; observation_ids: string[] }>(
    `SELECT k.id AS trace_id,
       sum(o.total_cost) FILTER (WHERE ${carriesUsage('o')}) AS cost,
       sum(o.total_tokens) FILTER (WHERE ${carriesUsage('o')}) AS tokens,
       array_agg(o.id ORDER BY o.start_time, o.id) AS observation_ids
     FROM unnest($2::text[]) AS k(id)
     JOIN traces g ON g.project_id = $1 AND g.parent_trace_id = k.id
     JOIN observations o ON o.project_id = $1 AND o.trace_id = g.id
     GROUP BY k.id`,
    [projectId, traceIds],
  );
  return new Map(
    r.rows.map((row) => [
      row.trace_id,
      { cost: num(row.cost), tokens: num(row.tokens), observationIds: row.observation_ids },
    ]),
  );
}

/**
 * The linked calls' observations (each provider attempt, a GENERATION with its usage and cost) as observations of the
 * agent trace: `traceId` is the agent trace, a call's top-level observations hang under the span that made the call,
 * and `gateway.trace_id` in their attributes names the gateway trace they are stored under.
 */
export async function linkedGatewayObservations(
  db: Queryable,
  projectId: string,
  traceId: string,
): Promise<StoredObservation[]> {
  const calls = await db.query<{ id: string; parent_span_id: string | null }>(
    'SELECT id, parent_span_id FROM traces WHERE project_id = $1 AND parent_trace_id = $2',
    [projectId, traceId],
  );
  const callerOf = new Map(calls.rows.map((c) => [c.id, c.parent_span_id]));
  const observations = await listObservationsOfTraces(db, projectId, [...callerOf.keys()]);
  return observations.map((o) => ({
    ...o,
    traceId,
    parentObservationId: o.parentObservationId ?? callerOf.get(o.traceId) ?? null,
    attributes: { ...o.attributes, 'gateway.trace_id': o.traceId },
  }));
}

/** The trace with its linked calls' cost and tokens added, and their observation ids after its own. */
export function withLinkedCalls(trace: StoredTrace, linked: LinkedGatewayTotals | undefined): StoredTrace {
  if (!linked) return trace;
  return {
    ...trace,
    cost: trace.cost + linked.cost,
    tokens: trace.tokens + linked.tokens,
    ...(trace.observationIds ? { observationIds: [...trace.observationIds, ...linked.observationIds] } : {}),
  };
}

/** `traces` (a page of them) with their linked calls folded in, by one grouped query. */
export async function foldLinkedCalls(db: Queryable, projectId: string, traces: StoredTrace[]): Promise<StoredTrace[]> {
  const totals = await linkedGatewayTotals(
    db,
    projectId,
    traces.map((t) => t.id),
  );
  return traces.map((t) => withLinkedCalls(t, totals.get(t.id)));
}
