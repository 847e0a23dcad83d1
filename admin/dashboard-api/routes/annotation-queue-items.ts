// Working through an annotation queue in the dashboard: adding an item (a trace from its page), the next pending item with what it points at (a trace's or
// observation's input and output, a session's turns), and completing an item with the reviewer's scores, stored and
// marked COMPLETED in one transaction.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import itemCreateSchema from '../../../schemas/api/public-annotation-queue-item-create.json' with { type: 'json' };
import {
  getQueueItem,
  insertQueueItem,
  listQueueItems,
  nextPendingItem,
  updateQueueItem,
  type ItemObjectType,
  type ItemStatus,
  type StoredQueueItem,
} from '../../../src/store/repos/annotation-queue-items.ts';
import type { Queryable } from '../../../src/store/database.ts';
import { getObservation, getObservationsByIds } from '../../../src/store/repos/observations.ts';
import { upsertScores } from '../../../src/store/repos/scores.ts';
import { getSession } from '../../../src/store/repos/sessions.ts';
import { getTrace } from '../../../src/store/repos/traces.ts';
import type { AdminContext } from '../../context.ts';
import {
  ANNOTATION_INPUT_SCHEMA,
  annotationRows,
  type AnnotationInput,
  type AnnotationTarget,
} from '../annotation-scores.ts';
import { DashboardApiError } from '../dashboard-error.ts';
import { pagination, PAGING_QUERY_SCHEMA, type PagingQuery } from '../paging.ts';
import { found } from '../project-scope.ts';
import { requireSession } from '../session-guard.ts';
import { queueOf, type QueueParams } from './annotation-queues.ts';

type ItemParams = QueueParams & { item: string };

const completeBody = {
  type: 'object',
  additionalProperties: false,
  required: ['scores'],
  properties: { scores: { type: 'array', maxItems: 100, items: ANNOTATION_INPUT_SCHEMA } },
};

/** A trace's or an observation's input and output, as the reviewer reads them. */
const ioView = (
  kind: 'trace' | 'observation',
  traceId: string,
  x: { name: string | null; input?: unknown; output?: unknown },
  time: string,
) => ({ kind, traceId, name: x.name, time, input: x.input ?? null, output: x.output ?? null });

/** What the item points at, as the reviewer reads it, and where its scores go; undefined when it is not stored. */
async function itemObject(db: Queryable, projectId: string, item: StoredQueueItem) {
  if (item.objectType === 'TRACE') {
    const t = await getTrace(db, projectId, item.objectId);
    return t && { target: { traceId: t.id } as AnnotationTarget, view: ioView('trace', t.id, t, t.startTime) };
  }
  if (item.objectType === 'OBSERVATION') {
    const o = await getObservation(db, projectId, item.objectId);
    return (
      o && {
        target: { traceId: o.traceId, observationId: o.id } as AnnotationTarget,
        view: ioView('observation', o.traceId, o, o.startTime),
      }
    );
  }
  const s = await getSession(db, projectId, item.objectId);
  return (
    s && {
      target: { sessionId: s.id } as AnnotationTarget,
      view: {
        kind: 'session',
        sessionId: s.id,
        time: s.createdAt,
        turns: s.traces.map((t) => ({ traceId: t.id, name: t.name, input: t.input ?? null, output: t.output ?? null })),
      },
    }
  );
}

const itemsQuery = {
  type: 'object',
  properties: { status: { enum: ['PENDING', 'COMPLETED'] }, ...PAGING_QUERY_SCHEMA.properties },
};

export function registerDashboardAnnotationQueueItems(app: FastifyInstance, ctx: AdminContext): void {
  // The queue's items oldest first, each with the trace it is in (an observation's is looked up) to link to.
  app.get<{ Params: QueueParams; Querystring: PagingQuery & { status?: ItemStatus } }>(
    '/projects/:project/annotation-queues/:queue/items',
    { onRequest: requireSession(ctx, 'viewer'), schema: { querystring: itemsQuery } },
    async (req) => {
      const { project, queue } = await queueOf(ctx, req);
      const q = req.query;
      const { data, total } = await listQueueItems(ctx.db, project.id, queue.id, q.status, q);
      const observationIds = data.filter((i) => i.objectType === 'OBSERVATION').map((i) => i.objectId);
      const observations = await getObservationsByIds(ctx.db, project.id, observationIds);
      const traceOf = new Map(observations.map((o) => [o.id, o.traceId]));
      return {
        data: data.map((i) => ({
          id: i.id,
          objectType: i.objectType,
          objectId: i.objectId,
          traceId: i.objectType === 'TRACE' ? i.objectId : (traceOf.get(i.objectId) ?? null),
          status: i.status,
          createdAt: i.createdAt,
          completedAt: i.completedAt,
        })),
        pagination: pagination(q, total),
      };
    },
  );

  app.post<{ Params: QueueParams; Body: { objectId: string; objectType: ItemObjectType; status: ItemStatus } }>(
    '/projects/:project/annotation-queues/:queue/items',
    { onRequest: requireSession(ctx, 'member'), schema: { body: itemCreateSchema } },
    async (req) => {
      const { project, queue } = await queueOf(ctx, req);
      const item = await insertQueueItem(ctx.db, project.id, { id: randomUUID(), queueId: queue.id, ...req.body });
      return { id: item.id, status: item.status };
    },
  );

  app.get<{ Params: QueueParams; Querystring: { after?: string } }>(
    '/projects/:project/annotation-queues/:queue/next',
    {
      onRequest: requireSession(ctx, 'viewer'),
      schema: { querystring: { type: 'object', properties: { after: { type: 'string', minLength: 1 } } } },
    },
    async (req) => {
      const { project, queue } = await queueOf(ctx, req);
      const item = await nextPendingItem(ctx.db, project.id, queue.id, req.query.after);
      if (!item) return { item: null };
      const object = await itemObject(ctx.db, project.id, item);
      return {
        item: { id: item.id, objectType: item.objectType, objectId: item.objectId, createdAt: item.createdAt },
        object: object?.view ?? null,
      };
    },
  );

  app.post<{ Params: ItemParams; Body: { scores: AnnotationInput[] } }>(
    '/projects/:project/annotation-queues/:queue/items/:item/complete',
    { onRequest: requireSession(ctx, 'member'), schema: { body: completeBody } },
    async (req) => {
      const { project, queue } = await queueOf(ctx, req);
      const what = `item '${req.params.item}' in this queue`;
      const item = found(await getQueueItem(ctx.db, project.id, queue.id, req.params.item), what);
      const object = await itemObject(ctx.db, project.id, item);
      if (!object && req.body.scores.length > 0)
        throw new DashboardApiError(
          'not_found',
          `The ${item.objectType.toLowerCase()} '${item.objectId}' is not stored`,
        );
      const target = { ...object?.target, queueId: queue.id };
      const rows = await annotationRows(ctx, req, project.id, req.body.scores, target);
      const done = await ctx.db.transaction(async (tx) => {
        if (rows.length > 0) await upsertScores(tx, rows);
        return updateQueueItem(tx, project.id, queue.id, item.id, 'COMPLETED');
      });
      return { item: { id: item.id, status: found(done, what).status }, scoreIds: rows.map((r) => r.id) };
    },
  );
}
