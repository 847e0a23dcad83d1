// Spans of the versioned REST API: created under a trace, ended by PATCH (rules in docs/rest-api.md).
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import createSchema from '../../../schemas/api/rest-span-create.json' with { type: 'json' };
import updateSchema from '../../../schemas/api/rest-span-update.json' with { type: 'json' };
import { lockSpan } from '../../../src/platform/store/repos/spans.ts';
import { getTrace } from '../../../src/platform/store/repos/traces.ts';
import { getObservation, updateObservation } from '../../../src/platform/store/repos/observations.ts';
import { insertObservations } from '../../../src/platform/store/repos/trace-batch.ts';
import type { AdminContext } from '../../context.ts';
import { restSpan, restSpanReceipt } from '../representations.ts';
import { projectOf } from '../request-guard.ts';
import { invalidField, notFound } from '../rest-error.ts';
import { instantOf, isoOf } from '../time-values.ts';

interface CreateBody {
  name: string;
  parentId?: string | null;
  startTime?: string;
  attributes?: Record<string, unknown>;
}

interface UpdateBody {
  endTime?: string;
  status?: 'ok' | 'error';
  output?: unknown;
}

export function registerSpans(app: FastifyInstance, ctx: AdminContext): void {
  app.post<{ Params: { id: string }; Body: CreateBody }>(
    '/traces/:id/spans',
    { schema: { body: createSchema } },
    async (req, reply) => {
      const project = projectOf(req);
      const traceId = req.params.id;
      const body = req.body;
      // Late spans are welcome: a finished trace still takes them, and startTime is the client's to set.
      if (!(await getTrace(ctx.db, project.id, traceId))) throw notFound('Trace', traceId);
      const parentId = body.parentId ?? null;
      if (parentId !== null) {
        const parent = await getObservation(ctx.db, project.id, parentId);
        if (!parent || parent.traceId !== traceId)
          throw invalidField('parentId', 'must be the id of a span of this trace, or null');
      }
      const id = randomUUID();
      await insertObservations(ctx.db, [
        {
          projectId: project.id,
          id,
          traceId,
          parentObservationId: parentId,
          type: 'SPAN',
          name: body.name,
          startTime: isoOf(body.startTime === undefined ? ctx.clock.now() : instantOf('startTime', body.startTime)),
          attributes: body.attributes ?? {},
        },
      ]);
      const span = await getObservation(ctx.db, project.id, id);
      return reply.code(201).send(restSpan(span!));
    },
  );

  /**
   * The first PATCH ends the span: endTime defaults to now (never before startTime), status to ok. Once ended, a
   * span takes new output, and the same endTime and status again (a retried call), but not different ones.
   */
  app.patch<{ Params: { id: string }; Body: UpdateBody }>(
    '/spans/:id',
    { schema: { body: updateSchema } },
    async (req) => {
      const project = projectOf(req);
      const { id } = req.params;
      const body = req.body;
      const endTime = body.endTime === undefined ? undefined : instantOf('endTime', body.endTime);
      const updated = await ctx.db.transaction(async (tx) => {
        const span = await lockSpan(tx, project.id, id);
        if (!span) throw notFound('Span', id);
        const start = Date.parse(span.startTime);
        if (span.endTime === null) {
          if (endTime !== undefined && endTime < start)
            throw invalidField('endTime', `must not be before the span's startTime ${span.startTime}`);
          return updateObservation(tx, project.id, id, {
            endTime: isoOf(endTime ?? Math.max(ctx.clock.now(), start)),
            status: body.status ?? 'ok',
            output: body.output,
          });
        }
        if (endTime !== undefined && endTime !== Date.parse(span.endTime)) {
          throw invalidField('endTime', `cannot change: the span already ended at ${span.endTime}`);
        }
        if (body.status !== undefined && span.status !== null && body.status !== span.status) {
          throw invalidField('status', `cannot change from ${span.status} to ${body.status}: the span already ended`);
        }
        return updateObservation(tx, project.id, id, {
          status: span.status === null ? body.status : undefined,
          output: body.output,
        });
      });
      if (!updated) throw notFound('Span', id);
      return project.ingestionOnly ? restSpanReceipt(updated) : restSpan(updated);
    },
  );
}
