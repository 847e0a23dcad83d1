// Annotation queues of the public API (docs/public-api.md "Annotation queues — /api/public/annotation-queues"): queues
// and their user assignments; their items are in annotation-queue-items.ts. Every route under a queue answers 404 when
// the project has no such queue.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import assignmentSchema from '../../../schemas/api/public-annotation-queue-assignment.json' with { type: 'json' };
import createSchema from '../../../schemas/api/public-annotation-queue-create.json' with { type: 'json' };
import pageQuerySchema from '../../../schemas/api/public-page-query.json' with { type: 'json' };
import {
  assignUser,
  getAnnotationQueue,
  insertAnnotationQueue,
  listAnnotationQueues,
  unassignUser,
  type StoredAnnotationQueue,
} from '../../../src/platform/store/repos/annotation-queues.ts';
import type { AdminContext } from '../../context.ts';
import { pageMeta, pageOffset, type PageQuery } from '../paging.ts';
import { PublicApiError } from '../public-error.ts';
import { projectOf, requireKey } from '../route-access.ts';

export type QueueParams = { queueId: string };

const publicQueue = (q: StoredAnnotationQueue) => ({
  id: q.id,
  name: q.name,
  description: q.description,
  scoreConfigIds: q.scoreConfigIds,
  createdAt: q.createdAt,
  updatedAt: q.updatedAt,
});

/** The queue of the path with the key's project id, or 404 when the project has no such queue. */
export async function queueOf(ctx: AdminContext, req: FastifyRequest<{ Params: QueueParams }>) {
  const projectId = projectOf(req).id;
  const queue = await getAnnotationQueue(ctx.db, projectId, req.params.queueId);
  if (!queue)
    throw new PublicApiError(
      'NotFoundError',
      `Annotation queue ${req.params.queueId} not found within authorized project`,
    );
  return { projectId, queue };
}

export function registerPublicAnnotationQueues(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireKey(ctx, 'project');

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
    publicQueue((await queueOf(ctx, req)).queue),
  );

  const assignment = { schema: { body: assignmentSchema }, onRequest };
  app.post<{ Params: QueueParams; Body: { userId: string } }>(
    '/annotation-queues/:queueId/assignments',
    assignment,
    async (req) => {
      const { projectId } = await queueOf(ctx, req);
      await assignUser(ctx.db, projectId, req.params.queueId, req.body.userId);
      return { userId: req.body.userId, queueId: req.params.queueId, projectId };
    },
  );

  app.delete<{ Params: QueueParams; Body: { userId: string } }>(
    '/annotation-queues/:queueId/assignments',
    assignment,
    async (req) => {
      const { projectId } = await queueOf(ctx, req);
      await unassignUser(ctx.db, projectId, req.params.queueId, req.body.userId);
      return { success: true };
    },
  );
}
