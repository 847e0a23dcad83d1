// Traces of the versioned REST API: create, read, list and update (status transitions in docs/rest-api.md).
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import createSchema from '../../../schemas/api/rest-trace-create.json' with { type: 'json' };
import updateSchema from '../../../schemas/api/rest-trace-update.json' with { type: 'json' };
import listSchema from '../../../schemas/api/rest-traces-query.json' with { type: 'json' };
import { withStatementTimeout } from '../../../src/platform/store/database.ts';
import {
  getTrace,
  listTraces,
  lockTrace,
  updateTrace,
  type TraceStatus,
} from '../../../src/platform/store/repos/traces.ts';
import { listObservationsOfTrace } from '../../../src/platform/store/repos/observations.ts';
import { insertTraces } from '../../../src/platform/store/repos/trace-batch.ts';
import type { AdminContext } from '../../context.ts';
import { restTrace, restTraceReceipt, restTraceWithSpans } from '../representations.ts';
import { projectOf } from '../request-guard.ts';
import { invalidField, notFound } from '../rest-error.ts';
import { isoOf, traceWindow } from '../time-values.ts';

interface CreateBody {
  name: string;
  input?: string;
  metadata?: Record<string, unknown>;
  tags?: Record<string, string>;
}

interface UpdateBody {
  output?: string;
  status?: TraceStatus;
  metadata?: Record<string, unknown>;
}

interface ListQuery {
  limit: number;
  offset: number;
  status?: TraceStatus;
  agent?: string;
  startDate?: string;
  endDate?: string;
}

type IdParams = { id: string };

/**
 * in_progress may move to any status (a finished one gets endTime now); a finished trace keeps its status and
 * endTime: repeating the same status is accepted (a retried call), another one is refused.
 */
function checkTransition(from: TraceStatus, to: TraceStatus | undefined): void {
  if (to === undefined || from === 'in_progress' || to === from) return;
  throw invalidField('status', `cannot change from ${from} to ${to}: a finished trace keeps its status`);
}

export function registerTraces(app: FastifyInstance, ctx: AdminContext): void {
  app.post<{ Body: CreateBody }>('/traces', { schema: { body: createSchema } }, async (req, reply) => {
    const project = projectOf(req);
    const body = req.body;
    const trace = {
      id: randomUUID(),
      name: body.name,
      startTime: isoOf(ctx.clock.now()),
      status: 'in_progress' as const,
      input: body.input ?? null,
      metadata: body.metadata ?? {},
      tags: body.tags ?? {},
    };
    await insertTraces(ctx.db, [{ projectId: project.id, source: 'api', ...trace }]);
    return reply.code(201).send(trace);
  });

  app.get<{ Params: IdParams }>('/traces/:id', async (req) => {
    const project = projectOf(req);
    const db = withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);
    const trace = await getTrace(db, project.id, req.params.id);
    if (!trace) throw notFound('Trace', req.params.id);
    return restTraceWithSpans(trace, await listObservationsOfTrace(db, project.id, trace.id));
  });

  app.get<{ Querystring: ListQuery }>('/traces', { schema: { querystring: listSchema } }, async (req) => {
    const project = projectOf(req);
    const q = req.query;
    const { from, to } = traceWindow(q.startDate, q.endDate);
    const db = withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);
    const { data, total } = await listTraces(db, project.id, {
      status: q.status,
      agentName: q.agent,
      from,
      to,
      limit: q.limit,
      offset: q.offset,
    });
    return {
      data: data.map(restTrace),
      pagination: { total, limit: q.limit, offset: q.offset, hasMore: q.offset + data.length < total },
    };
  });

  app.patch<{ Params: IdParams; Body: UpdateBody }>('/traces/:id', { schema: { body: updateSchema } }, async (req) => {
    const project = projectOf(req);
    const { id } = req.params;
    const body = req.body;
    const updated = await ctx.db.transaction(async (tx) => {
      const current = await lockTrace(tx, project.id, id);
      if (!current) throw notFound('Trace', id);
      checkTransition(current.status, body.status);
      const finishing = current.status === 'in_progress' && body.status !== undefined && body.status !== 'in_progress';
      return updateTrace(tx, project.id, id, {
        status: body.status,
        output: body.output,
        metadata: body.metadata,
        // Not before the start, whatever the clocks of the writers said.
        endTime: finishing ? isoOf(Math.max(ctx.clock.now(), Date.parse(current.startTime))) : undefined,
      });
    });
    if (!updated) throw notFound('Trace', id);
    if (project.ingestionOnly) return restTraceReceipt(updated);
    return restTraceWithSpans(updated, await listObservationsOfTrace(ctx.db, project.id, id));
  });
}
