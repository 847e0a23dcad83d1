// Annotation queues of a project (public API /annotation-queues) and who is assigned to them. Score config ids are
// stored as given; user ids are text without a foreign key (there is no users table to point at yet).
import type { Queryable } from '../database.ts';
import { selectPage, type PageWindow } from './page.ts';
import { iso, json } from './rows.ts';

export interface StoredAnnotationQueue {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  scoreConfigIds: string[];
  createdAt: string;
  updatedAt: string;
}

function toQueue(r: Record<string, any>): StoredAnnotationQueue {
  return {
    id: r.id,
    projectId: r.project_id,
    name: r.name,
    description: r.description,
    scoreConfigIds: r.score_config_ids,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

/** The new queue, or undefined when the project already has a queue of that name. */
export async function insertAnnotationQueue(
  db: Queryable,
  q: Pick<StoredAnnotationQueue, 'id' | 'projectId' | 'name' | 'description' | 'scoreConfigIds'>,
): Promise<StoredAnnotationQueue | undefined> {
  const r = await db.query(
    `INSERT INTO annotation_queues (id, project_id, name, description, score_config_ids) VALUES ($1, $2, $3, $4, $5::text::jsonb)
     ON CONFLICT (project_id, name) DO NOTHING RETURNING *`,
    [q.id, q.projectId, q.name, q.description, json(q.scoreConfigIds)],
  );
  return r.rows[0] ? toQueue(r.rows[0]) : undefined;
}

/** Oldest first (ties on id). */
export function listAnnotationQueues(
  db: Queryable,
  projectId: string,
  page: PageWindow,
): Promise<{ data: StoredAnnotationQueue[]; total: number }> {
  return selectPage(
    db,
    {
      columns: '*',
      from: 'annotation_queues',
      where: 'project_id = $1',
      params: [projectId],
      orderBy: 'created_at, id',
    },
    page,
    toQueue,
  );
}

export async function getAnnotationQueue(
  db: Queryable,
  projectId: string,
  id: string,
): Promise<StoredAnnotationQueue | undefined> {
  const r = await db.query('SELECT * FROM annotation_queues WHERE project_id = $1 AND id = $2', [projectId, id]);
  return r.rows[0] ? toQueue(r.rows[0]) : undefined;
}

/** Assigning twice is one assignment. */
export async function assignUser(db: Queryable, projectId: string, queueId: string, userId: string): Promise<void> {
  await db.query(
    'INSERT INTO annotation_queue_assignments (queue_id, project_id, user_id) VALUES ($1, $2, $3) ON CONFLICT (queue_id, user_id) DO NOTHING',
    [queueId, projectId, userId],
  );
}

export async function unassignUser(db: Queryable, projectId: string, queueId: string, userId: string): Promise<void> {
  await db.query('DELETE FROM annotation_queue_assignments WHERE project_id = $1 AND queue_id = $2 AND user_id = $3', [
    projectId,
    queueId,
    userId,
  ]);
}
