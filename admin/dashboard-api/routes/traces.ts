// Dashboard traces: a filtered list, and one trace with what its page needs: every observation in full (the tree and
// the details of a selected node), the gateway calls its spans made (joined by traceparent) with their attempts, the
// gateway's provider attempts and the trace's scores.
import type { FastifyInstance } from 'fastify';
import { withStatementTimeout, type Queryable } from '../../../src/platform/store/database.ts';
import { getAgent } from '../../../src/platform/store/repos/agents.ts';
import { listScoresOfTrace, type StoredScore } from '../../../src/platform/store/repos/scores.ts';
import {
  decodeCursor,
  listTracePage,
  type TraceLevel,
  type TraceOrder,
  type TracePageQuery,
} from '../../../src/platform/store/repos/trace-page.ts';
import { getTrace, listTraces, type StoredTrace, type TraceStatus } from '../../../src/platform/store/repos/traces.ts';
import {
  listObservationsOfTrace,
  listObservationsOfTraces,
  type StoredObservation,
} from '../../../src/platform/store/repos/observations.ts';
import type { AdminContext } from '../../context.ts';
import { governanceFacts } from '../gateway-call-facts.ts';
import { restSpanReceipt, restTrace } from '../../rest-api/representations.ts';
import { pagination, PAGING_QUERY_SCHEMA } from '../paging.ts';
import { tracePreview } from '../trace-preview.ts';
import { found, projectOf } from '../project-scope.ts';
import { DashboardApiError } from '../dashboard-error.ts';
import { requireSession } from '../session-guard.ts';

interface ListQuery {
  status?: TraceStatus;
  agent?: string;
  modelGroup?: string;
  name?: string;
  userId?: string;
  sessionId?: string;
  tag?: string | string[];
  tags?: string;
  level?: TraceLevel;
  minLatencyMs?: number;
  maxLatencyMs?: number;
  minCost?: number;
  maxCost?: number;
  from?: string;
  to?: string;
  q?: string;
  sort: TraceOrder;
  order: 'asc' | 'desc';
  after?: string;
  before?: string;
  limit: number;
  offset: number;
}

const text = { type: 'string', minLength: 1 };
const tag = { type: 'string', pattern: '^[^:]' };
const bound = { type: 'number', minimum: 0 };
const listQuery = {
  type: 'object',
  properties: {
    status: { enum: ['in_progress', 'completed', 'error'] },
    agent: text,
    modelGroup: text,
    name: text,
    userId: text,
    sessionId: text,
    tag: { anyOf: [tag, { type: 'array', items: tag }] },
    tags: { type: 'string', pattern: '^ *[^ :,][^,]*(, *[^ :,][^,]*)*$' },
    level: { enum: ['ERROR', 'WARNING'] },
    minLatencyMs: bound,
    maxLatencyMs: bound,
    minCost: bound,
    maxCost: bound,
    from: { type: 'string', format: 'date-time' },
    to: { type: 'string', format: 'date-time' },
    q: text,
    sort: { enum: ['time', 'latency', 'cost'], default: 'time' },
    order: { enum: ['asc', 'desc'], default: 'desc' },
    after: text,
    before: text,
    ...PAGING_QUERY_SCHEMA.properties,
  },
};

/** The tag filters: each `tag` given, and each of the comma-separated `tags` (spaces around them dropped). */
const tagsOf = (q: ListQuery) => {
  const listed = q.tags?.split(',').map((tag) => tag.trim()) ?? [];
  const all = [...(q.tag === undefined ? [] : [q.tag].flat()), ...listed.filter(Boolean)];
  return all.length > 0 ? all : undefined;
};

/** A trace as the list shows it: the REST shape (duration in ms) plus the gateway facts the columns and filters use. */
function traceSummary(t: StoredTrace) {
  const { input: _input, output: _output, metadata: _metadata, ...rest } = restTrace(t);
  return {
    ...rest,
    source: t.source,
    agentId: t.agentId,
    agentName: t.agentName,
    modelGroup: t.modelGroup,
    deployment: t.deployment,
    userId: t.userId,
    sessionId: t.sessionId,
    statusCode: t.statusCode,
    errorCode: t.errorCode,
    cacheHit: t.cacheHit,
  };
}

/**
 * The gateway's attempt record (`x-svc-attempts`, docs/api.md) of an attempt observation, with its times for the
 * waterfall.
 */
function attemptOf(o: StoredObservation) {
  const a = o.attributes;
  return {
    spanId: o.id,
    d: a['gateway.deployment'],
    o: a['gateway.outcome'],
    ms: a['gateway.duration_ms'],
    ...(a['gateway.first_chunk_ms'] !== undefined ? { firstChunkMs: a['gateway.first_chunk_ms'] } : {}),
    ...(a['gateway.provider_status'] !== undefined ? { st: a['gateway.provider_status'] } : {}),
    ...(o.statusMessage ? { why: o.statusMessage } : {}),
    provider: a['gateway.provider'] ?? null,
    model: o.model,
    usage: o.usageDetails,
    costDetails: o.costDetails,
    cost: o.totalCost,
    startTime: o.startTime,
    endTime: o.endTime,
  };
}

/** An observation with everything its details pane shows: input, output, metadata, model, usage and cost per part. */
function spanOf(o: StoredObservation) {
  return {
    ...restSpanReceipt(o),
    type: o.type,
    level: o.level,
    statusMessage: o.statusMessage,
    completionStartTime: o.completionStartTime,
    input: o.input ?? null,
    output: o.output ?? null,
    attributes: o.attributes,
    model: o.model,
    modelParameters: o.modelParameters,
    usage: o.usageDetails,
    costDetails: o.costDetails,
    cost: o.totalCost,
    promptName: o.promptName,
    promptVersion: o.promptVersion,
  };
}

/** At most this many gateway calls are shown under one agent trace. */
const GATEWAY_CALLS_SHOWN = 200;

/**
 * The gateway traces an agent's spans made (their traceparent named this trace), each with its provider attempts,
 * so the waterfall shows every LLM call in place under the span that made it.
 */
async function gatewayCallsOf(db: Queryable, projectId: string, traceId: string) {
  const { data } = await listTraces(db, projectId, {
    parentTraceId: traceId,
    orderBy: { column: 'startTime', direction: 'asc' },
    limit: GATEWAY_CALLS_SHOWN,
    offset: 0,
  });
  const observations = await listObservationsOfTraces(
    db,
    projectId,
    data.map((t) => t.id),
  );
  return data.map((t) => ({
    ...traceSummary(t),
    input: t.input ?? null,
    output: t.output ?? null,
    parentSpanId: t.parentSpanId,
    governance: governanceFacts(t.metadata),
    attempts: observations
      .filter((o) => o.traceId === t.id && o.attributes['gateway.deployment'] !== undefined)
      .map(attemptOf),
  }));
}

const scoreOf = (s: StoredScore) => ({
  id: s.id,
  name: s.name,
  dataType: s.dataType,
  value: s.value,
  stringValue: s.stringValue,
  comment: s.comment,
  source: s.source,
  observationId: s.observationId,
  timestamp: s.timestamp,
});

export function registerDashboardTraces(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireSession(ctx, 'viewer');
  /** The trace store's reads, each limited to store.query_timeout_ms (a query past it answers 422 query_timeout). */
  const reads = () => withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);

  app.get<{ Querystring: ListQuery }>(
    '/projects/:project/traces',
    { onRequest, schema: { querystring: listQuery } },
    async (req) => {
      const project = await projectOf(ctx, req);
      const db = reads();
      const q = req.query;
      const cursor = q.after ?? q.before;
      if (cursor !== undefined && !decodeCursor(cursor))
        throw new DashboardApiError('invalid_request', 'Unknown page cursor');
      const page: TracePageQuery = {
        status: q.status,
        modelGroup: q.modelGroup,
        name: q.name,
        userId: q.userId,
        sessionId: q.sessionId,
        tags: tagsOf(q),
        level: q.level,
        minLatencyMs: q.minLatencyMs,
        maxLatencyMs: q.maxLatencyMs,
        minCost: q.minCost,
        maxCost: q.maxCost,
        from: q.from,
        to: q.to,
        nameContains: q.q,
        order: q.sort,
        direction: q.order,
        after: q.after,
        before: q.after === undefined ? q.before : undefined,
        limit: q.limit,
        offset: q.offset,
      };
      // The agent filter takes an agent's id (what the agents page links with) or its name.
      if (q.agent !== undefined) {
        if (await getAgent(db, project.id, q.agent)) page.agentId = q.agent;
        else page.agentName = q.agent;
      }
      const { data, total, totalIsLowerBound, next, previous, rankedNewest } = await listTracePage(
        db,
        project.id,
        page,
      );
      return {
        data: data.map((t) => ({
          ...traceSummary(t),
          inputPreview: tracePreview(t.input, 'in'),
          outputPreview: tracePreview(t.output, 'out'),
        })),
        // A page reached back at the start is the first page, whatever offset was asked for.
        pagination: {
          ...pagination({ limit: q.limit, offset: previous === null ? 0 : q.offset }, total),
          totalIsLowerBound,
          next,
          previous,
          rankedNewest: rankedNewest ?? null,
        },
      };
    },
  );

  app.get<{ Params: { project: string; id: string } }>('/projects/:project/traces/:id', { onRequest }, async (req) => {
    const project = await projectOf(ctx, req);
    const db = reads();
    const trace = found(await getTrace(db, project.id, req.params.id), `trace '${req.params.id}'`);
    const [observations, scores, gatewayCalls] = await Promise.all([
      listObservationsOfTrace(db, project.id, trace.id),
      listScoresOfTrace(db, project.id, trace.id),
      gatewayCallsOf(db, project.id, trace.id),
    ]);
    return {
      ...traceSummary(trace),
      parentTraceId: trace.parentTraceId,
      parentSpanId: trace.parentSpanId,
      input: trace.input ?? null,
      output: trace.output ?? null,
      metadata: trace.metadata,
      spans: observations.map(spanOf),
      attempts: observations.filter((o) => o.attributes['gateway.deployment'] !== undefined).map(attemptOf),
      scores: scores.map(scoreOf),
      gatewayCalls,
    };
  });
}
