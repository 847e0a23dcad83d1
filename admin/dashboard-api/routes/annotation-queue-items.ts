// Working through an annotation queue in the dashboard: adding an item (a trace from its page), the next pending item with what it points at (a trace's or
// observation's input and output, a session's turns), and completing an item with the reviewer's scores, stored and
// marked COMPLETED in one transaction.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import itemCreateSchema from '../../../schemas/api/public-annotation-queue-item-create.json' with { type: 'json' };
import type { Queryable } from '../../../src/platform/store/database.ts';
import {
  getQueueItem,
  insertQueueItem,
  listQueueItems,
  nextPendingItem,
  updateQueueItem,
  type ItemObjectType,
  type ItemStatus,
  type StoredQueueItem,
} from '../../../src/platform/store/repos/annotation-queue-items.ts';
import { getObservationsByIds } from '../../../src/platform/store/repos/observations.ts';
import { upsertScores } from '../../../src/platform/store/repos/scores.ts';
import type { AdminContext } from '../../context.ts';
import { ANNOTATION_INPUT_SCHEMA, annotationRows, type AnnotationInput } from '../annotation-scores.ts';
import { DashboardApiError } from '../dashboard-error.ts';
import { pagination, PAGING_QUERY_SCHEMA, type PagingQuery } from '../paging.ts';
import { found } from '../project-scope.ts';
import { itemObject, itemScores } from '../queue-item-object.ts';
import { requireSession } from '../session-guard.ts';
import { queueOf, type QueueParams } from './annotation-queues.ts';

type ItemParams = QueueParams & { item: string };

// A score given again names its id (one of the item's scores): it is changed, not added.
const completeBody = {
  type: 'object',
  additionalProperties: false,
  required: ['scores'],
  properties: {
    scores: {
      type: 'array',
      maxItems: 100,
      items: {
        ...ANNOTATION_INPUT_SCHEMA,
        properties: { ...ANNOTATION_INPUT_SCHEMA.properties, id: { type: 'string', minLength: 1 } },
      },
    },
  },
};

type CompletedScore = AnnotationInput & { id?: string };

/** The item as the review panel shows it: what it points at and the scores the queue holds for it. */
async function itemAnswer(db: Queryable, projectId: string, queueId: string, item: StoredQueueItem) {
  const object = await itemObject(db, projectId, item);
  return {
    item: {
      id: item.id,
      objectType: item.objectType,
      objectId: item.objectId,
      status: item.status,
      createdAt: item.createdAt,
    },
    object: object?.view ?? null,
    scores: object ? await itemScores(db, projectId, queueId, object.target) : [],
  };
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
      return item ? itemAnswer(ctx.db, project.id, queue.id, item) : { item: null };
    },
  );

  app.get<{ Params: ItemParams }>(
    '/projects/:project/annotation-queues/:queue/items/:item',
    { onRequest: requireSession(ctx, 'viewer') },
    async (req) => {
      const { project, queue } = await queueOf(ctx, req);
      const item = await getQueueItem(ctx.db, project.id, queue.id, req.params.item);
      return itemAnswer(ctx.db, project.id, queue.id, found(item, `item '${req.params.item}' in this queue`));
    },
  );

  app.post<{ Params: ItemParams; Body: { scores: CompletedScore[] } }>(
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
      const held = new Set(
        object ? (await itemScores(ctx.db, project.id, queue.id, object.target)).map((x) => x.id) : [],
      );
      const foreign = req.body.scores.find((x) => x.id !== undefined && !held.has(x.id));
      if (foreign) throw new DashboardApiError('invalid_request', `Score '${foreign.id}' is not one of this item's`);
      const rows = await annotationRows(ctx, req, project.id, req.body.scores, target);
      const done = await ctx.db.transaction(async (tx) => {
        if (rows.length > 0) await upsertScores(tx, rows);
        return updateQueueItem(tx, project.id, queue.id, item.id, 'COMPLETED');
      });
      return { item: { id: item.id, status: found(done, what).status }, scoreIds: rows.map((r) => r.id) };
    },
  );
}
