// Dashboard annotation queues: the project's queues with their score configs and pending and completed counts,
// creating one, and one queue with the configs a reviewer scores with. Working through the items is in
// annotation-queue-items.ts.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import createSchema from '../../../schemas/api/public-annotation-queue-create.json' with { type: 'json' };
import { countItemsByQueue } from '../../../src/platform/store/repos/annotation-queue-items.ts';
import {
  getAnnotationQueue,
  insertAnnotationQueue,
  listAnnotationQueues,
  type StoredAnnotationQueue,
} from '../../../src/platform/store/repos/annotation-queues.ts';
import { getScoreConfigsByIds, type StoredScoreConfig } from '../../../src/platform/store/repos/score-configs.ts';
import type { AdminContext } from '../../context.ts';
import { publicScoreConfig } from '../../public-api/routes/score-configs.ts';
import { DashboardApiError } from '../dashboard-error.ts';
import { found, projectOf } from '../project-scope.ts';
import { requireSession } from '../session-guard.ts';

export type QueueParams = { project: string; queue: string };

/** Every queue at once: a project has a handful. */
const ALL_QUEUES = 10_000;

/** The project and the queue of the path; 404 for a queue the project does not have. */
export async function queueOf(ctx: AdminContext, req: FastifyRequest<{ Params: QueueParams }>) {
  const project = await projectOf(ctx, req);
  const queue = await getAnnotationQueue(ctx.db, project.id, req.params.queue);
  return { project, queue: found(queue, `annotation queue '${req.params.queue}'`) };
}

/** A queue with its configs (in the queue's order; a deleted config is left out) and its item counts. */
function queueRow(
  q: StoredAnnotationQueue,
  configs: Map<string, StoredScoreConfig>,
  counts: { PENDING: number; COMPLETED: number } | undefined,
) {
  return {
    id: q.id,
    name: q.name,
    description: q.description,
    scoreConfigs: q.scoreConfigIds.flatMap((id) => {
      const config = configs.get(id);
      return config ? [publicScoreConfig(config)] : [];
    }),
    pending: counts?.PENDING ?? 0,
    completed: counts?.COMPLETED ?? 0,
    createdAt: q.createdAt,
  };
}

export function registerDashboardAnnotationQueues(app: FastifyInstance, ctx: AdminContext): void {
  const read = requireSession(ctx, 'viewer');

  app.get('/projects/:project/annotation-queues', { onRequest: read }, async (req) => {
    const project = await projectOf(ctx, req);
    const [{ data }, counts] = await Promise.all([
      listAnnotationQueues(ctx.db, project.id, { limit: ALL_QUEUES, offset: 0 }),
      countItemsByQueue(ctx.db, project.id),
    ]);
    const configs = await getScoreConfigsByIds(
      ctx.db,
      project.id,
      data.flatMap((q) => q.scoreConfigIds),
    );
    return { data: data.map((q) => queueRow(q, configs, counts.get(q.id))) };
  });

  app.post<{ Body: { name: string; description?: string | null; scoreConfigIds: string[] } }>(
    '/projects/:project/annotation-queues',
    { onRequest: requireSession(ctx, 'member'), schema: { body: createSchema } },
    async (req) => {
      const project = await projectOf(ctx, req);
      const b = req.body;
      const configs = await getScoreConfigsByIds(ctx.db, project.id, b.scoreConfigIds);
      const unknown = b.scoreConfigIds.find((id) => !configs.has(id));
      if (unknown) throw new DashboardApiError('invalid_request', `No score config '${unknown}' in this project`);
      const queue = await insertAnnotationQueue(ctx.db, {
        id: randomUUID(),
        projectId: project.id,
        name: b.name,
        description: b.description ?? null,
        scoreConfigIds: b.scoreConfigIds,
      });
      if (!queue) throw new DashboardApiError('conflict', `An annotation queue named "${b.name}" already exists`);
      return queueRow(queue, configs, undefined);
    },
  );

  app.get<{ Params: QueueParams }>('/projects/:project/annotation-queues/:queue', { onRequest: read }, async (req) => {
    const { project, queue } = await queueOf(ctx, req);
    const [configs, counts] = await Promise.all([
      getScoreConfigsByIds(ctx.db, project.id, queue.scoreConfigIds),
      countItemsByQueue(ctx.db, project.id, queue.id),
    ]);
    return queueRow(queue, configs, counts.get(queue.id));
  });
}
