// The items of an annotation queue (docs/public-api.md "Annotation queues — /api/public/annotation-queues"): list, add,
// read, set the status of and delete them. Listing and adding answer 404 when the project has no such queue.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import itemCreateSchema from '../../../schemas/api/public-annotation-queue-item-create.json' with { type: 'json' };
import itemUpdateSchema from '../../../schemas/api/public-annotation-queue-item-update.json' with { type: 'json' };
import itemsQuerySchema from '../../../schemas/api/public-annotation-queue-items-query.json' with { type: 'json' };
import {
  deleteQueueItem,
  getQueueItem,
  insertQueueItem,
  listQueueItems,
  updateQueueItem,
  type ItemObjectType,
  type ItemStatus,
  type StoredQueueItem,
} from '../../../src/platform/store/repos/annotation-queue-items.ts';
import type { AdminContext } from '../../context.ts';
import { pageMeta, pageOffset, type PageQuery } from '../paging.ts';
import { PublicApiError } from '../public-error.ts';
import { projectOf, requireKey } from '../route-access.ts';
import { queueOf, type QueueParams } from './annotation-queues.ts';

type ItemParams = QueueParams & { itemId: string };

const publicItem = (i: StoredQueueItem) => ({
  id: i.id,
  queueId: i.queueId,
  objectId: i.objectId,
  objectType: i.objectType,
  status: i.status,
  completedAt: i.completedAt,
  createdAt: i.createdAt,
  updatedAt: i.updatedAt,
});

const itemNotFound = (id: string) =>
  new PublicApiError('NotFoundError', `Annotation queue item ${id} not found within authorized project`);

export function registerPublicAnnotationQueueItems(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireKey(ctx, 'project');

  app.get<{ Params: QueueParams; Querystring: PageQuery & { status?: ItemStatus } }>(
    '/annotation-queues/:queueId/items',
    { schema: { querystring: itemsQuerySchema }, onRequest },
    async (req) => {
      const { projectId } = await queueOf(ctx, req);
      const { data, total } = await listQueueItems(ctx.db, projectId, req.params.queueId, req.query.status, {
        limit: req.query.limit,
        offset: pageOffset(req.query),
      });
      return { data: data.map(publicItem), meta: pageMeta(req.query, total) };
    },
  );

  app.post<{ Params: QueueParams; Body: { objectId: string; objectType: ItemObjectType; status: ItemStatus } }>(
    '/annotation-queues/:queueId/items',
    { schema: { body: itemCreateSchema }, onRequest },
    async (req) => {
      const { projectId } = await queueOf(ctx, req);
      return publicItem(
        await insertQueueItem(ctx.db, projectId, { id: randomUUID(), queueId: req.params.queueId, ...req.body }),
      );
    },
  );

  app.get<{ Params: ItemParams }>('/annotation-queues/:queueId/items/:itemId', { onRequest }, async (req) => {
    const item = await getQueueItem(ctx.db, projectOf(req).id, req.params.queueId, req.params.itemId);
    if (!item) throw itemNotFound(req.params.itemId);
    return publicItem(item);
  });

  app.patch<{ Params: ItemParams; Body: { status?: ItemStatus } }>(
    '/annotation-queues/:queueId/items/:itemId',
    { schema: { body: itemUpdateSchema }, onRequest },
    async (req) => {
      const item = await updateQueueItem(
        ctx.db,
        projectOf(req).id,
        req.params.queueId,
        req.params.itemId,
        req.body.status,
      );
      if (!item) throw itemNotFound(req.params.itemId);
      return publicItem(item);
    },
  );

  app.delete<{ Params: ItemParams }>('/annotation-queues/:queueId/items/:itemId', { onRequest }, async (req) => {
    if (!(await deleteQueueItem(ctx.db, projectOf(req).id, req.params.queueId, req.params.itemId)))
      throw itemNotFound(req.params.itemId);
    return { success: true, message: 'Annotation queue item deleted' };
  });
}
