// Dataset items (docs/public-api.md "Datasets and score configs"): upserted by id, which is unique in the project; an
// id that belongs to another dataset is refused rather than moved.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../database.ts';
import { jsonOrNull } from './datasets.ts';
import { selectPage, type PageWindow } from './page.ts';
import { conditions, iso } from './rows.ts';

export type DatasetItemStatus = 'ACTIVE' | 'ARCHIVED';

export interface DatasetItemInput {
  /** Absent: a new UUID. */
  id?: string;
  input?: unknown;
  expectedOutput?: unknown;
  metadata?: unknown;
  sourceTraceId?: string | null;
  sourceObservationId?: string | null;
  status?: DatasetItemStatus | null;
}

export interface StoredDatasetItem {
  id: string;
  projectId: string;
  datasetId: string;
  datasetName: string;
  status: DatasetItemStatus;
  input: unknown;
  expectedOutput: unknown;
  metadata: unknown;
  sourceTraceId: string | null;
  sourceObservationId: string | null;
  createdAt: string;
  updatedAt: string;
}

const ITEM_COLUMNS = 'i.*, d.name AS dataset_name';
const ITEM_FROM = 'dataset_items i JOIN datasets d ON d.project_id = i.project_id AND d.id = i.dataset_id';

function toItem(r: Record<string, any>): StoredDatasetItem {
  return {
    id: r.id,
    projectId: r.project_id,
    datasetId: r.dataset_id,
    datasetName: r.dataset_name,
    status: r.status,
    input: r.input,
    expectedOutput: r.expected_output,
    metadata: r.metadata,
    sourceTraceId: r.source_trace_id,
    sourceObservationId: r.source_observation_id,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

/**
 * Creates the item, or updates the one with that id in this dataset (fields given replace, absent or null ones keep).
 * Undefined when the id belongs to another dataset of the project.
 */
export async function upsertDatasetItem(
  db: Queryable,
  projectId: string,
  datasetId: string,
  item: DatasetItemInput,
): Promise<StoredDatasetItem | undefined> {
  const r = await db.query(
    `WITH upserted AS (
       INSERT INTO dataset_items (project_id, id, dataset_id, status, input, expected_output, metadata, source_trace_id, source_observation_id)
       VALUES ($1, $2, $3, COALESCE($4::text, 'ACTIVE'), $5::text::jsonb, $6::text::jsonb, $7::text::jsonb, $8, $9)
       ON CONFLICT (project_id, id) DO UPDATE SET
         status = COALESCE($4::text, dataset_items.status),
         input = COALESCE(EXCLUDED.input, dataset_items.input),
         expected_output = COALESCE(EXCLUDED.expected_output, dataset_items.expected_output),
         metadata = COALESCE(EXCLUDED.metadata, dataset_items.metadata),
         source_trace_id = COALESCE(EXCLUDED.source_trace_id, dataset_items.source_trace_id),
         source_observation_id = COALESCE(EXCLUDED.source_observation_id, dataset_items.source_observation_id),
         updated_at = now()
       WHERE dataset_items.dataset_id = EXCLUDED.dataset_id
       RETURNING *)
     SELECT ${ITEM_COLUMNS} FROM upserted i JOIN datasets d ON d.project_id = i.project_id AND d.id = i.dataset_id`,
    [
      projectId,
      item.id ?? randomUUID(),
      datasetId,
      item.status ?? null,
      jsonOrNull(item.input),
      jsonOrNull(item.expectedOutput),
      jsonOrNull(item.metadata),
      item.sourceTraceId ?? null,
      item.sourceObservationId ?? null,
    ],
  );
  return r.rows[0] ? toItem(r.rows[0]) : undefined;
}

export async function getDatasetItem(
  db: Queryable,
  projectId: string,
  id: string,
): Promise<StoredDatasetItem | undefined> {
  const r = await db.query(`SELECT ${ITEM_COLUMNS} FROM ${ITEM_FROM} WHERE i.project_id = $1 AND i.id = $2`, [
    projectId,
    id,
  ]);
  return r.rows[0] ? toItem(r.rows[0]) : undefined;
}

export interface DatasetItemFilter {
  datasetId?: string;
  sourceTraceId?: string;
  sourceObservationId?: string;
  /** Archived items too (the dashboard shows them with their status). */
  includeArchived?: boolean;
}

/**
 * The project's ACTIVE items (archived ones are left out, as Langfuse lists them, unless `includeArchived`), newest
 * first, ties on id.
 */
export function listDatasetItems(
  db: Queryable,
  projectId: string,
  f: DatasetItemFilter,
  page: PageWindow,
): Promise<{ data: StoredDatasetItem[]; total: number }> {
  const where = conditions(
    f.includeArchived ? 'i.project_id = $1' : "i.project_id = $1 AND i.status = 'ACTIVE'",
    projectId,
  );
  if (f.datasetId) where.add((p) => `i.dataset_id = ${p}`, f.datasetId);
  if (f.sourceTraceId) where.add((p) => `i.source_trace_id = ${p}`, f.sourceTraceId);
  if (f.sourceObservationId) where.add((p) => `i.source_observation_id = ${p}`, f.sourceObservationId);
  return selectPage(
    db,
    {
      columns: ITEM_COLUMNS,
      from: ITEM_FROM,
      where: where.sql(),
      params: where.params,
      orderBy: 'i.created_at DESC, i.id',
    },
    page,
    toItem,
  );
}

/** Every ACTIVE item of the datasets, newest first: the legacy dataset routes. */
export async function listItemsOfDatasets(
  db: Queryable,
  projectId: string,
  datasetIds: readonly string[],
): Promise<StoredDatasetItem[]> {
  const r = await db.query(
    `SELECT ${ITEM_COLUMNS} FROM ${ITEM_FROM} WHERE i.project_id = $1 AND i.dataset_id = ANY($2::text[]) AND i.status = 'ACTIVE' ORDER BY i.created_at DESC, i.id`,
    [projectId, datasetIds],
  );
  return r.rows.map(toItem);
}

/** True when an item was deleted; the run items that refer to it stay (a run keeps all its results, as in Langfuse). */
export async function deleteDatasetItem(db: Queryable, projectId: string, id: string): Promise<boolean> {
  const r = await db.query('DELETE FROM dataset_items WHERE project_id = $1 AND id = $2', [projectId, id]);
  return r.rowCount > 0;
}
