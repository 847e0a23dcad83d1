// Items of an annotation queue: a trace, observation or session to annotate, PENDING until COMPLETED. The object is
// stored as given (Langfuse does not check that it exists either).
import type { Queryable } from '../database.ts';
import { selectPage, type PageWindow } from './page.ts';
import { conditions, iso, num } from './rows.ts';

export type ItemStatus = 'PENDING' | 'COMPLETED';
export type ItemObjectType = 'TRACE' | 'OBSERVATION' | 'SESSION';

export interface StoredQueueItem {
  id: string;
  queueId: string;
  objectId: string;
  objectType: ItemObjectType;
  status: ItemStatus;
  completedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

function toItem(r: Record<string, any>): StoredQueueItem {
  return {
    id: r.id,
    queueId: r.queue_id,
    objectId: r.object_id,
    objectType: r.object_type,
    status: r.status,
    completedAt: iso(r.completed_at) ?? null,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

// completed_at is set when an item becomes COMPLETED, kept while it stays so, cleared when it goes back to PENDING.
const COMPLETED_AT = (status: string, previous: string) =>
  `CASE WHEN ${status} = 'COMPLETED' THEN COALESCE(${previous}, now()) ELSE NULL END`;

export async function insertQueueItem(
  db: Queryable,
  projectId: string,
  item: Pick<StoredQueueItem, 'id' | 'queueId' | 'objectId' | 'objectType' | 'status'>,
): Promise<StoredQueueItem> {
  const r = await db.query(
    `INSERT INTO annotation_queue_items (id, project_id, queue_id, object_id, object_type, status, completed_at)
     VALUES ($1, $2, $3, $4, $5, $6, ${COMPLETED_AT('$6', 'NULL::timestamptz')}) RETURNING *`,
    [item.id, projectId, item.queueId, item.objectId, item.objectType, item.status],
  );
  return toItem(r.rows[0]);
}

/** Oldest first (ties on id). */
export function listQueueItems(
  db: Queryable,
  projectId: string,
  queueId: string,
  status: ItemStatus | undefined,
  page: PageWindow,
) {
  const where = conditions('project_id = $1 AND queue_id = $2', projectId, queueId);
  if (status) where.add((p) => `status = ${p}`, status);
  return selectPage(
    db,
    {
      columns: '*',
      from: 'annotation_queue_items',
      where: where.sql(),
      params: where.params,
      orderBy: 'created_at, id',
    },
    page,
    toItem,
  );
}

export async function getQueueItem(
  db: Queryable,
  projectId: string,
  queueId: string,
  id: string,
): Promise<StoredQueueItem | undefined> {
  const r = await db.query('SELECT * FROM annotation_queue_items WHERE project_id = $1 AND queue_id = $2 AND id = $3', [
    projectId,
    queueId,
    id,
  ]);
  return r.rows[0] ? toItem(r.rows[0]) : undefined;
}

/** The item after the change, or undefined when the queue has no such item; an absent status changes nothing. */
export async function updateQueueItem(
  db: Queryable,
  projectId: string,
  queueId: string,
  id: string,
  status: ItemStatus | undefined,
): Promise<StoredQueueItem | undefined> {
  const r = await db.query(
    `UPDATE annotation_queue_items SET status = COALESCE($4, status), completed_at = ${COMPLETED_AT('COALESCE($4, status)', 'completed_at')},
       updated_at = now()
     WHERE project_id = $1 AND queue_id = $2 AND id = $3 RETURNING *`,
    [projectId, queueId, id, status ?? null],
  );
  return r.rows[0] ? toItem(r.rows[0]) : undefined;
}

/** True when an item was deleted. */
export async function deleteQueueItem(db: Queryable, projectId: string, queueId: string, id: string): Promise<boolean> {
  const r = await db.query('DELETE FROM annotation_queue_items WHERE project_id = $1 AND queue_id = $2 AND id = $3', [
    projectId,
    queueId,
    id,
  ]);
  return r.rowCount > 0;
}

/** Pending and completed items of each of the project's queues that has any (or of one queue), by queue id. */
export async function countItemsByQueue(
  db: Queryable,
  projectId: string,
  queueId?: string,
): Promise<Map<string, Record<ItemStatus, number>>> {
  const where = conditions('project_id = $1', projectId);
  if (queueId) where.add((p) => `queue_id = ${p}`, queueId);
  const r = await db.query(
    `SELECT queue_id, count(*) FILTER (WHERE status = 'PENDING') AS pending, count(*) FILTER (WHERE status = 'COMPLETED') AS completed
     FROM annotation_queue_items WHERE ${where.sql()} GROUP BY queue_id`,
    where.params,
  );
  return new Map(
    r.rows.map((row) => [row.queue_id as string, { PENDING: num(row.pending), COMPLETED: num(row.completed) }]),
  );
}

/** The first pending item of the queue (oldest first, ties on id) after the item `afterId`, or from the start. */
export async function nextPendingItem(
  db: Queryable,
  projectId: string,
  queueId: string,
  afterId?: string,
): Promise<StoredQueueItem | undefined> {
  const where = conditions("project_id = $1 AND queue_id = $2 AND status = 'PENDING'", projectId, queueId);
  if (afterId)
    where.add(
      (id) =>
        `(created_at, id) > (SELECT a.created_at, a.id FROM annotation_queue_items a WHERE a.project_id = $1 AND a.queue_id = $2 AND a.id = ${id})`,
      afterId,
    );
  const r = await db.query(
    `SELECT * FROM annotation_queue_items WHERE ${where.sql()} ORDER BY created_at, id LIMIT 1`,
    where.params,
  );
  return r.rows[0] ? toItem(r.rows[0]) : undefined;
}
