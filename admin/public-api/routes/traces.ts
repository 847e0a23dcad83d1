// {base_url}/api/public/traces: the project's traces in Langfuse's list shape, one trace with its observations and
// scores, and deletion of traces with their observations (docs/public-api.md "Traces, observations and sessions"). A
// trace's cost and observations include the gateway calls its spans made (linked-gateway-calls.ts).
import type { FastifyInstance } from 'fastify';
import deleteSchema from '../../../schemas/api/public-traces-delete.json' with { type: 'json' };
import querySchema from '../../../schemas/api/public-traces-query.json' with { type: 'json' };
import { observationModels } from '../../../src/platform/pricing/observation-model.ts';
import { withStatementTimeout } from '../../../src/platform/store/database.ts';
import { TRACE_FILTER_COLUMNS } from '../../../src/platform/store/repos/filter-columns.ts';
import { listScoresOfTrace } from '../../../src/platform/store/repos/scores.ts';
import { deleteTraces, getTrace, listTraces } from '../../../src/platform/store/repos/traces.ts';
import { listObservationsOfTrace } from '../../../src/platform/store/repos/observations.ts';
import {
  foldLinkedCalls,
  linkedGatewayObservations,
  linkedGatewayTotals,
  withLinkedCalls,
} from '../../../src/platform/store/repos/linked-gateway-calls.ts';
import type { AdminContext } from '../../context.ts';
import { readFilterParam } from '../filter-param.ts';
import { listParam } from '../list-param.ts';
import { pageMeta, pageOffset } from '../paging.ts';
import { PublicApiError } from '../public-error.ts';
import { publicObservation, publicScore, publicTrace } from '../representations.ts';
import { projectOf, requireKey } from '../route-access.ts';

interface TracesQuery {
  page: number;
  limit: number;
  userId?: string;
  name?: string;
  sessionId?: string;
  fromTimestamp?: string;
  toTimestamp?: string;
  tags?: string[];
  environment?: string[];
  release?: string;
  version?: string;
  orderBy: `${'timestamp' | 'name'}.${'asc' | 'desc'}`;
  filter?: string;
}

/** The simple parameters and the filter column each stands for. */
const SIMPLE_TRACE_PARAMS = {
  userId: 'userId',
  name: 'name',
  sessionId: 'sessionId',
  fromTimestamp: 'timestamp',
  toTimestamp: 'timestamp',
  tags: 'tags',
  environment: 'environment',
  release: 'release',
  version: 'version',
} as const;

type TraceParams = { traceId: string };

const traceNotFound = (id: string) =>
  new PublicApiError('NotFoundError', `Trace ${id} not found within authorized project`);

export function registerPublicTraces(app: FastifyInstance, ctx: AdminContext): void {
  app.get<{ Querystring: TracesQuery }>(
    '/traces',
    { schema: { querystring: querySchema }, onRequest: requireKey(ctx, 'project') },
    async (req) => {
      const project = projectOf(req);
      const { conditions, query: q } = readFilterParam(req.query, TRACE_FILTER_COLUMNS, SIMPLE_TRACE_PARAMS);
      const [field, direction] = q.orderBy.split('.') as ['timestamp' | 'name', 'asc' | 'desc'];
      const db = withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);
      const { data, total } = await listTraces(db, project.id, {
        userId: q.userId,
        name: q.name,
        sessionId: q.sessionId,
        from: q.fromTimestamp,
        to: q.toTimestamp,
        tags: listParam(q.tags),
        environments: listParam(q.environment),
        release: q.release,
        version: q.version,
        orderBy: { column: field === 'name' ? 'name' : 'startTime', direction },
        conditions,
        withLinkedIds: true,
        limit: q.limit,
        offset: pageOffset(q),
      });
      const page = await foldLinkedCalls(db, project.id, data);
      return { data: page.map(publicTrace), meta: pageMeta(q, total) };
    },
  );

  app.get<{ Params: TraceParams }>('/traces/:traceId', { onRequest: requireKey(ctx, 'project') }, async (req) => {
    const projectId = projectOf(req).id;
    const { traceId } = req.params;
    const db = withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);
    const trace = await getTrace(db, projectId, traceId);
    if (!trace) throw traceNotFound(traceId);
    const [own, linked, linkedTotals, scores, modelOf] = await Promise.all([
      listObservationsOfTrace(db, projectId, traceId),
      linkedGatewayObservations(db, projectId, traceId),
      linkedGatewayTotals(db, projectId, [traceId]),
      listScoresOfTrace(db, projectId, traceId),
      observationModels(db, projectId),
    ]);
    // The gateway calls the trace's spans made count as its own generations (docs/public-api.md).
    const observations = [...own, ...linked].sort(
      (a, b) => a.startTime.localeCompare(b.startTime) || a.id.localeCompare(b.id),
    );
    return {
      ...publicTrace(withLinkedCalls(trace, linkedTotals.get(traceId))),
      observations: observations.map((o) => publicObservation(o, modelOf(o))),
      scores: scores.map(publicScore),
    };
  });

  app.delete<{ Params: TraceParams }>('/traces/:traceId', { onRequest: requireKey(ctx, 'project') }, async (req) => {
    const { traceId } = req.params;
    if ((await deleteTraces(ctx.db, projectOf(req).id, [traceId])).length === 0) throw traceNotFound(traceId);
    return { message: 'Trace deleted successfully' };
  });

  app.delete<{ Body: { traceIds: string[] } }>(
    '/traces',
    { schema: { body: deleteSchema }, onRequest: requireKey(ctx, 'project') },
    async (req) => {
      // Ids not stored in the project are skipped, as Langfuse's background deletion does.
      await deleteTraces(ctx.db, projectOf(req).id, req.body.traceIds);
      return { message: 'Traces deleted successfully' };
    },
  );
}
