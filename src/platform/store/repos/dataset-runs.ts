// Dataset runs and run items (docs/public-api.md "Datasets and score configs"): a run is named within its dataset and
// created implicitly by the first run item that names it; a run item links a dataset item to the trace (and
// observation) of one execution.
import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../database.ts';
import { jsonOrNull } from './datasets.ts';
import { selectPage, type PageWindow } from './page.ts';
import { iso } from './rows.ts';

export interface StoredDatasetRun {
  id: string;
  projectId: string;
  datasetId: string;
  datasetName: string;
  name: string;
  description: string | null;
  metadata: unknown;
  createdAt: string;
  updatedAt: string;
}

export interface StoredDatasetRunItem {
  id: string;
  projectId: string;
  datasetRunId: string;
  datasetRunName: string;
  datasetItemId: string;
  traceId: string;
  observationId: string | null;
  createdAt: string;
  updatedAt: string;
}

const RUN_COLUMNS = 'r.*, d.name AS dataset_name';
const RUN_FROM = 'dataset_runs r JOIN datasets d ON d.project_id = r.project_id AND d.id = r.dataset_id';
const RUN_ITEM_COLUMNS = 'ri.*, r.name AS run_name';
const RUN_ITEM_FROM =
  'dataset_run_items ri JOIN dataset_runs r ON r.project_id = ri.project_id AND r.id = ri.dataset_run_id';

function toRun(r: Record<string, any>): StoredDatasetRun {
  return {
    id: r.id,
    projectId: r.project_id,
    datasetId: r.dataset_id,
    datasetName: r.dataset_name,
    name: r.name,
    description: r.description,
    metadata: r.metadata,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

function toRunItem(r: Record<string, any>): StoredDatasetRunItem {
  return {
    id: r.id,
    projectId: r.project_id,
    datasetRunId: r.dataset_run_id,
    datasetRunName: r.run_name,
    datasetItemId: r.dataset_item_id,
    traceId: r.trace_id,
    observationId: r.observation_id,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

export interface RunItemInput {
  runName: string;
  runDescription?: string | null;
  metadata?: unknown;
  datasetId: string;
  datasetItemId: string;
  traceId: string;
  observationId?: string | null;
  /** Default: now. */
  createdAt?: string;
}

/** Creates the run item, and its run when the dataset has none of that name (a given description or metadata updates it). */
export function createRunItem(db: Database, projectId: string, input: RunItemInput): Promise<StoredDatasetRunItem> {
  return db.transaction((tx) => createRunItemIn(tx, projectId, input));
}

/** The id of the dataset's run of that name, created with `runId` when new (a given description or metadata updates it). */
async function upsertRun(db: Queryable, projectId: string, runId: string, input: RunItemInput): Promise<string> {
  const run = await db.query<{ id: string }>(
    `INSERT INTO dataset_runs (project_id, id, dataset_id, name, description, metadata) VALUES ($1, $2, $3, $4, $5, $6::text::jsonb)
     ON CONFLICT (project_id, dataset_id, name) DO UPDATE SET
       description = COALESCE(EXCLUDED.description, dataset_runs.description),
       metadata = COALESCE(EXCLUDED.metadata, dataset_runs.metadata),
       updated_at = CASE WHEN EXCLUDED.description IS NULL AND EXCLUDED.metadata IS NULL THEN dataset_runs.updated_at ELSE now() END
     RETURNING id`,
    [projectId, runId, input.datasetId, input.runName, input.runDescription ?? null, jsonOrNull(input.metadata)],
  );
  return run.rows[0].id;
}

async function createRunItemIn(db: Queryable, projectId: string, input: RunItemInput): Promise<StoredDatasetRunItem> {
  const runId = await upsertRun(db, projectId, randomUUID(), input);
  const r = await db.query(
    `WITH inserted AS (
       INSERT INTO dataset_run_items (project_id, id, dataset_run_id, dataset_item_id, trace_id, observation_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, COALESCE($7::timestamptz, now()), COALESCE($7::timestamptz, now())) RETURNING *)
     SELECT ri.*, $8::text AS run_name FROM inserted ri`,
    [
      projectId,
      randomUUID(),
      runId,
      input.datasetItemId,
      input.traceId,
      input.observationId ?? null,
      input.createdAt ?? null,
      input.runName,
    ],
  );
  return toRunItem(r.rows[0]);
}

/** One item of an experiment, as the Langfuse Python SDK records it on the item's root span (src/observability/ingestion/otel/experiment-items.ts). */
export interface ExperimentItemLink extends RunItemInput {
  /** The experiment id: the run's id when the run is new and no other run has it. */
  runId: string;
  /** The item's root span: the run item's observation and its id, so a span sent again links once. */
  observationId: string;
}

/**
 * Links each experiment item whose dataset item exists in its dataset: the run by name (created when new) and a run
 * item. Links to a dataset or item that is not stored are skipped.
 */
export async function linkExperimentItems(
  db: Database,
  projectId: string,
  links: readonly ExperimentItemLink[],
): Promise<void> {
  if (links.length === 0) return;
  await db.transaction(async (tx) => {
    for (const link of links) {
      const item = await tx.query('SELECT 1 FROM dataset_items WHERE project_id = $1 AND id = $2 AND dataset_id = $3', [
        projectId,
        link.datasetItemId,
        link.datasetId,
      ]);
      if (item.rows.length === 0) continue;
      const idTaken = await tx.query(
        'SELECT 1 FROM dataset_runs WHERE project_id = $1 AND id = $2 AND NOT (dataset_id = $3 AND name = $4)',
        [projectId, link.runId, link.datasetId, link.runName],
      );
      const runId = await upsertRun(tx, projectId, idTaken.rows.length > 0 ? randomUUID() : link.runId, link);
      await tx.query(
        `INSERT INTO dataset_run_items (project_id, id, dataset_run_id, dataset_item_id, trace_id, observation_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $2, $6, $6) ON CONFLICT (project_id, id) DO NOTHING`,
        [
          projectId,
          link.observationId,
          runId,
          link.datasetItemId,
          link.traceId,
          link.createdAt ?? new Date().toISOString(),
        ],
      );
    }
  });
}

export async function getRun(
  db: Queryable,
  projectId: string,
  datasetId: string,
  name: string,
): Promise<StoredDatasetRun | undefined> {
  const r = await db.query(
    `SELECT ${RUN_COLUMNS} FROM ${RUN_FROM} WHERE r.project_id = $1 AND r.dataset_id = $2 AND r.name = $3`,
    [projectId, datasetId, name],
  );
  return r.rows[0] ? toRun(r.rows[0]) : undefined;
}

/** The dataset's runs, newest first (ties on id). */
export function listRuns(
  db: Queryable,
  projectId: string,
  datasetId: string,
  page: PageWindow,
): Promise<{ data: StoredDatasetRun[]; total: number }> {
  return selectPage(
    db,
    {
      columns: RUN_COLUMNS,
      from: RUN_FROM,
      where: 'r.project_id = $1 AND r.dataset_id = $2',
      params: [projectId, datasetId],
      orderBy: 'r.created_at DESC, r.id',
    },
    page,
    toRun,
  );
}

/** Run names per dataset id, newest run first: the legacy dataset routes. */
export async function runNamesOfDatasets(
  db: Queryable,
  projectId: string,
  datasetIds: readonly string[],
): Promise<Map<string, string[]>> {
  const r = await db.query<{ dataset_id: string; name: string }>(
    'SELECT dataset_id, name FROM dataset_runs WHERE project_id = $1 AND dataset_id = ANY($2::text[]) ORDER BY created_at DESC, id',
    [projectId, datasetIds],
  );
  const names = new Map<string, string[]>();
  for (const row of r.rows) names.set(row.dataset_id, [...(names.get(row.dataset_id) ?? []), row.name]);
  return names;
}

/** True when the run was deleted (its run items go with it). */
export async function deleteRun(db: Queryable, projectId: string, runId: string): Promise<boolean> {
  const r = await db.query('DELETE FROM dataset_runs WHERE project_id = $1 AND id = $2', [projectId, runId]);
  return r.rowCount > 0;
}

/** The run's items, newest first (ties on id). */
export function listRunItems(
  db: Queryable,
  projectId: string,
  runId: string,
  page: PageWindow,
): Promise<{ data: StoredDatasetRunItem[]; total: number }> {
  return selectPage(
    db,
    {
      columns: RUN_ITEM_COLUMNS,
      from: RUN_ITEM_FROM,
      where: 'ri.project_id = $1 AND ri.dataset_run_id = $2',
      params: [projectId, runId],
      orderBy: 'ri.created_at DESC, ri.id',
    },
    page,
    toRunItem,
  );
}

/** Every item of the run, newest first: GET /datasets/{name}/runs/{runName}. */
export async function allRunItems(db: Queryable, projectId: string, runId: string): Promise<StoredDatasetRunItem[]> {
  const r = await db.query(
    `SELECT ${RUN_ITEM_COLUMNS} FROM ${RUN_ITEM_FROM} WHERE ri.project_id = $1 AND ri.dataset_run_id = $2 ORDER BY ri.created_at DESC, ri.id`,
    [projectId, runId],
  );
  return r.rows.map(toRunItem);
}
