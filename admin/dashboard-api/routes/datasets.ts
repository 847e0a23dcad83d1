// Dashboard datasets and experiments: the datasets with their item and run counts, one dataset with its runs (each
// with its averages) and its items, a comparison of runs item by item (each run's output, scores, latency and cost),
// and, for members and above, creating a dataset, adding an item (from a trace: its input, its output as the
// expected output) and archiving or restoring one. Datasets, items and runs are read and written with the public
// API's store queries; a `:name` holding `/` arrives whole, percent-encoded as one segment.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { withStatementTimeout, type Queryable } from '../../../src/platform/store/database.ts';
import {
  getDatasetItem,
  listDatasetItems,
  listItemsOfDatasets,
  upsertDatasetItem,
  type DatasetItemStatus,
  type StoredDatasetItem,
} from '../../../src/platform/store/repos/dataset-items.ts';
import { listRuns, type StoredDatasetRun } from '../../../src/platform/store/repos/dataset-runs.ts';
import {
  countDatasetContents,
  runItemResults,
  type RunItemResult,
} from '../../../src/platform/store/repos/dataset-summaries.ts';
import {
  getDatasetByName,
  listDatasets,
  upsertDataset,
  type StoredDataset,
} from '../../../src/platform/store/repos/datasets.ts';
import { getTrace } from '../../../src/platform/store/repos/traces.ts';
import type { AdminContext } from '../../context.ts';
import { publicDataset, publicDatasetItem } from '../../public-api/routes/datasets.ts';
import { publicDatasetRun } from '../../public-api/routes/dataset-runs.ts';
import { pagination, PAGING_QUERY_SCHEMA, type PagingQuery } from '../paging.ts';
import { found, projectOf } from '../project-scope.ts';
import { summarizeRuns } from '../run-summary.ts';
import { DashboardApiError } from '../dashboard-error.ts';
import { requireSession } from '../session-guard.ts';

type NameParams = { project: string; name: string };
interface ItemBody {
  input: unknown;
  expectedOutput?: unknown;
  metadata?: unknown;
  sourceTraceId?: string;
}

/** The runs a dataset page lists: its newest. */
const RUNS_SHOWN = 100;
/** Runs side by side in a comparison. */
const MAX_COMPARED = 10;

const itemBody = {
  type: 'object',
  additionalProperties: false,
  required: ['input'],
  properties: {
    input: {},
    expectedOutput: {},
    metadata: {},
    sourceTraceId: { type: 'string', minLength: 1 },
  },
};
const datasetBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    description: { type: 'string' },
  },
};
const statusBody = {
  type: 'object',
  additionalProperties: false,
  required: ['status'],
  properties: { status: { enum: ['ACTIVE', 'ARCHIVED'] } },
};
const compareQuery = {
  type: 'object',
  required: ['runs'],
  properties: { runs: { type: 'string', minLength: 1, description: 'run ids, comma-separated' } },
};

/** The dataset of that name in the project, or 404. */
async function datasetOf(db: Queryable, projectId: string, name: string): Promise<StoredDataset> {
  return found(await getDatasetByName(db, projectId, name), `dataset '${name}'`);
}

/** Each run with the averages over its items' results. */
function withSummaries(runs: readonly StoredDatasetRun[], results: readonly RunItemResult[]) {
  const summaries = summarizeRuns(
    runs.map((r) => r.id),
    results,
  );
  return runs.map((r) => ({ ...publicDatasetRun(r), ...summaries.get(r.id)! }));
}

/** The latest result of each run for each item, by `runId item id` (a run may have run an item more than once). */
function latestResults(results: readonly RunItemResult[]): Map<string, RunItemResult> {
  return new Map(results.map((r) => [`${r.runId} ${r.datasetItemId}`, r]));
}

/** The dataset's ACTIVE items, then any other item a run result names (archived, or deleted: only its id). */
async function comparedItems(db: Queryable, dataset: StoredDataset, itemIds: readonly string[]) {
  const items: (StoredDatasetItem | { id: string; deleted: true })[] = await listItemsOfDatasets(
    db,
    dataset.projectId,
    [dataset.id],
  );
  const known = new Set(items.map((i) => i.id));
  for (const id of new Set(itemIds)) {
    if (known.has(id)) continue;
    items.push((await getDatasetItem(db, dataset.projectId, id)) ?? { id, deleted: true });
  }
  return items;
}

export function registerDashboardDatasets(app: FastifyInstance, ctx: AdminContext): void {
  const read = requireSession(ctx, 'viewer');
  const change = requireSession(ctx, 'member');
  const reads = () => withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);
  /** The `:name` dataset of the `:project`, read with `db`. */
  const datasetIn = async (req: FastifyRequest<{ Params: NameParams }>, db: Queryable) =>
    datasetOf(db, (await projectOf(ctx, req)).id, req.params.name);

  app.get<{ Querystring: PagingQuery }>(
    '/projects/:project/datasets',
    { onRequest: read, schema: { querystring: PAGING_QUERY_SCHEMA } },
    async (req) => {
      const project = await projectOf(ctx, req);
      const db = reads();
      const { data, total } = await listDatasets(db, project.id, req.query);
      const counts = await countDatasetContents(
        db,
        project.id,
        data.map((d) => d.id),
      );
      return {
        data: data.map((d) => ({ ...publicDataset(d), ...counts.get(d.id)! })),
        pagination: pagination(req.query, total),
      };
    },
  );

  app.post<{ Params: { project: string }; Body: { name: string; description?: string } }>(
    '/projects/:project/datasets',
    { onRequest: change, schema: { body: datasetBody } },
    async (req) => {
      const project = await projectOf(ctx, req);
      return publicDataset(await upsertDataset(ctx.db, project.id, req.body));
    },
  );

  app.get<{ Params: NameParams }>('/projects/:project/datasets/:name', { onRequest: read }, async (req) => {
    const db = reads();
    const dataset = await datasetIn(req, db);
    const counts = (await countDatasetContents(db, dataset.projectId, [dataset.id])).get(dataset.id)!;
    const runs = (await listRuns(db, dataset.projectId, dataset.id, { limit: RUNS_SHOWN, offset: 0 })).data;
    const results = await runItemResults(
      db,
      dataset.projectId,
      runs.map((r) => r.id),
      { withOutput: false },
    );
    return { ...publicDataset(dataset), ...counts, runs: withSummaries(runs, results) };
  });

  app.get<{ Params: NameParams; Querystring: PagingQuery }>(
    '/projects/:project/datasets/:name/items',
    { onRequest: read, schema: { querystring: PAGING_QUERY_SCHEMA } },
    async (req) => {
      const db = reads();
      const dataset = await datasetIn(req, db);
      const filter = { datasetId: dataset.id, includeArchived: true };
      const { data, total } = await listDatasetItems(db, dataset.projectId, filter, req.query);
      return { data: data.map(publicDatasetItem), pagination: pagination(req.query, total) };
    },
  );

  app.post<{ Params: NameParams; Body: ItemBody }>(
    '/projects/:project/datasets/:name/items',
    { onRequest: change, schema: { body: itemBody } },
    async (req) => {
      const dataset = await datasetIn(req, ctx.db);
      const { sourceTraceId } = req.body;
      if (sourceTraceId !== undefined)
        found(await getTrace(ctx.db, dataset.projectId, sourceTraceId), `trace '${sourceTraceId}'`);
      const item = await upsertDatasetItem(ctx.db, dataset.projectId, dataset.id, req.body);
      return publicDatasetItem(item!);
    },
  );

  // Archiving keeps the item and its run results; the public API and experiments leave it out.
  app.patch<{ Params: NameParams & { id: string }; Body: { status: DatasetItemStatus } }>(
    '/projects/:project/datasets/:name/items/:id',
    { onRequest: change, schema: { body: statusBody } },
    async (req) => {
      const dataset = await datasetIn(req, ctx.db);
      const { id } = req.params;
      const item = await getDatasetItem(ctx.db, dataset.projectId, id);
      found(item?.datasetId === dataset.id ? item : undefined, `item '${id}' in dataset '${dataset.name}'`);
      const updated = await upsertDatasetItem(ctx.db, dataset.projectId, dataset.id, { id, status: req.body.status });
      return publicDatasetItem(updated!);
    },
  );

  app.get<{ Params: NameParams; Querystring: { runs: string } }>(
    '/projects/:project/datasets/:name/compare',
    { onRequest: read, schema: { querystring: compareQuery } },
    async (req) => {
      const db = reads();
      const dataset = await datasetIn(req, db);
      const wanted = [...new Set(req.query.runs.split(','))];
      if (wanted.length > MAX_COMPARED)
        throw new DashboardApiError('invalid_request', `At most ${MAX_COMPARED} runs can be compared`);
      // Every run of the dataset is read: a dataset has tens of runs, not thousands.
      const all = (await listRuns(db, dataset.projectId, dataset.id, { limit: 100_000, offset: 0 })).data;
      const runs = wanted.map((id) =>
        found(
          all.find((r) => r.id === id),
          `run '${id}' in dataset '${dataset.name}'`,
        ),
      );
      const results = await runItemResults(db, dataset.projectId, wanted, { withOutput: true });
      const latest = latestResults(results);
      const items = await comparedItems(
        db,
        dataset,
        results.map((r) => r.datasetItemId),
      );
      return {
        dataset: publicDataset(dataset),
        runs: withSummaries(runs, results),
        items: items.map((i) => ({
          ...('deleted' in i ? i : publicDatasetItem(i)),
          results: Object.fromEntries(wanted.map((runId) => [runId, latest.get(`${runId} ${i.id}`) ?? null])),
        })),
      };
    },
  );
}
