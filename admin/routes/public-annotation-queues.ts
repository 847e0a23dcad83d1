// Annotation queues of the public API (reference §8): queues, their items and user assignments. Every route under a
// queue answers 404 when the project has no such queue.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import assignmentSchema from '../../schemas/api/public-annotation-queue-assignment.json' with { type: 'json' };
import createSchema from '../../schemas/api/public-annotation-queue-create.json' with { type: 'json' };
import itemCreateSchema from '../../schemas/api/public-annotation-queue-item-create.json' with { type: 'json' };
import itemUpdateSchema from '../../schemas/api/public-annotation-queue-item-update.json' with { type: 'json' };
import itemsQuerySchema from '../../schemas/api/public-annotation-queue-items-query.json' with { type: 'json' };
import pageQuerySchema from '../../schemas/api/public-page-query.json' with { type: 'json' };
import {
  deleteQueueItem,
  getQueueItem,
  insertQueueItem,
  listQueueItems,
  updateQueueItem,
  type ItemObjectType,
  type ItemStatus,
  type StoredQueueItem,
} from '../../src/store/repos/annotation-queue-items.ts';
import {
  assignUser,
  getAnnotationQueue,
  insertAnnotationQueue,
  listAnnotationQueues,
  unassignUser,
  type StoredAnnotationQueue,
} from '../../src/store/repos/annotation-queues.ts';
import type { AdminContext } from '../context.ts';
import { pageMeta, pageOffset, type PageQuery } from '../public-api/paging.ts';
import { PublicApiError } from '../public-api/public-error.ts';
import { projectOf, requireKey } from '../public-api/route-access.ts';

type QueueParams = { queueId: string };
type ItemParams = QueueParams & { itemId: string };

const publicQueue = (q: StoredAnnotationQueue) => ({
  id: q.id,
  name: q.name,
  description: q.description,
  scoreConfigIds: q.scoreConfigIds,
  createdAt: q.createdAt,
  updatedAt: q.updatedAt,
});

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

export function registerPublicAnnotationQueues(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireKey(ctx, 'project');
  /** The project id, once the queue of the path is known to belong to it. */
  const queueProject = async (req: FastifyRequest<{ Params: QueueParams }>) => {
    const projectId = projectOf(req).id;
    const queue = await getAnnotationQueue(ctx.db, projectId, req.params.queueId);
    if (!queue)
      throw new PublicApiError(
        'NotFoundError',
        `Annotation queue ${req.params.queueId} not found within authorized project`,
      );
    return { projectId, queue };
  };

  app.get<{ Querystring: PageQuery }>(
    '/annotation-queues',
    { schema: { querystring: pageQuerySchema }, onRequest },
    async (req) => {
      const { data, total } = await listAnnotationQueues(ctx.db, projectOf(req).id, {
        limit: req.query.limit,
        offset: pageOffset(req.query),
      });
      return { data: data.map(publicQueue), meta: pageMeta(req.query, total) };
    },
  );

  app.post<{ Body: { name: string; description?: string | null; scoreConfigIds: string[] } }>(
    '/annotation-queues',
    { schema: { body: createSchema }, onRequest },
    async (req) => {
      const b = req.body;
      const queue = await insertAnnotationQueue(ctx.db, {
        id: randomUUID(),
        projectId: projectOf(req).id,
        name: b.name,
        description: b.description ?? null,
        scoreConfigIds: b.scoreConfigIds,
      });
      if (!queue)
        throw new PublicApiError(
          'ConflictError',
          `An annotation queue named "${b.name}" already exists in this project`,
        );
      return publicQueue(queue);
    },
  );

  app.get<{ Params: QueueParams }>('/annotation-queues/:queueId', { onRequest }, async (req) =>
    publicQueue((await queueProject(req)).queue),
  );

  app.get<{ Params: QueueParams; Querystring: PageQuery & { status?: ItemStatus } }>(
    '/annotation-queues/:queueId/items',
    { schema: { querystring: itemsQuerySchema }, onRequest },
    async (req) => {
      const { projectId } = await queueProject(req);
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
      const { projectId } = await queueProject(req);
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

  const assignment = { schema: { body: assignmentSchema }, onRequest };
  app.post<{ Params: QueueParams; Body: { userId: string } }>(
    '/annotation-queues/:queueId/assignments',
    assignment,
    async (req) => {
      const { projectId } = await queueProject(req);
      await assignUser(ctx.db, projectId, req.params.queueId, req.body.userId);
      return { userId: req.body.userId, queueId: req.params.queueId, projectId };
    },
  );

  app.delete<{ Params: QueueParams; Body: { userId: string } }>(
    '/annotation-queues/:queueId/assignments',
    assignment,
    async (req) => {
      const { projectId } = await queueProject(req);
      await unassignUser(ctx.db, projectId, req.params.queueId, req.body.userId);
      return { success: true };
    },
  );
}
