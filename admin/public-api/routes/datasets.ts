// Datasets of the public API (docs/public-api.md "Datasets and score configs"): Langfuse's v2 routes (POST, GET
// /v2/datasets, GET /v2/datasets/{datasetName}) and the legacy ones the JS v3 SDK still calls (POST, GET /datasets, GET
// /datasets/{datasetName} with items and run names). Names with folders arrive as one encoded segment (`a%2Fb`); the
// router matches before decoding, so the parameter holds `a/b`. The item and run routes share the shapes and the
// by-name lookup defined here.
import type { FastifyInstance } from 'fastify';
import createSchema from '../../../schemas/api/public-dataset-create.json' with { type: 'json' };
import pageQuerySchema from '../../../schemas/api/public-page-query.json' with { type: 'json' };
import type { Queryable } from '../../../src/platform/store/database.ts';
import { listItemsOfDatasets, type StoredDatasetItem } from '../../../src/platform/store/repos/dataset-items.ts';
import { runNamesOfDatasets } from '../../../src/platform/store/repos/dataset-runs.ts';
import {
  getDatasetByName,
  listDatasets,
  upsertDataset,
  type DatasetInput,
  type StoredDataset,
} from '../../../src/platform/store/repos/datasets.ts';
import type { AdminContext } from '../../context.ts';
import { pageMeta, pageOffset, type PageQuery } from '../paging.ts';
import { invalidRequestData, PublicApiError } from '../public-error.ts';
import { projectOf, requireKey } from '../route-access.ts';

type NameParams = { datasetName: string };

/** Langfuse's Dataset object. */
export function publicDataset(d: StoredDataset) {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    metadata: d.metadata,
    inputSchema: d.inputSchema,
    expectedOutputSchema: d.expectedOutputSchema,
    projectId: d.projectId,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

/**
 * Langfuse's DatasetItem object (no projectId, as Langfuse). `mediaReferences` is always empty: media uploads are not
 * served, so no item holds a media reference (the Langfuse Python SDK requires the field).
 */
export function publicDatasetItem(i: StoredDatasetItem) {
  return {
    id: i.id,
    status: i.status,
    input: i.input,
    expectedOutput: i.expectedOutput,
    metadata: i.metadata,
    sourceTraceId: i.sourceTraceId,
    sourceObservationId: i.sourceObservationId,
    datasetId: i.datasetId,
    datasetName: i.datasetName,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
    mediaReferences: [],
  };
}

/**
 * Langfuse's point-in-time dataset versions are not kept here: a request for one is refused rather than answered with
 * the dataset as it is now.
 */
export const unversioned = (field: string) =>
  invalidRequestData([
    { path: [field], message: 'point-in-time dataset versions are not supported: items are kept as they are now' },
  ]);

/** The project's dataset of that name, or the 404 Langfuse answers. */
export async function requireDataset(db: Queryable, projectId: string, name: string): Promise<StoredDataset> {
  const dataset = await getDatasetByName(db, projectId, name);
  if (!dataset) throw new PublicApiError('NotFoundError', 'Dataset not found');
  return dataset;
}

export function registerPublicDatasets(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireKey(ctx, 'project');

  /** The legacy shape: the dataset with its ACTIVE items and its run names. */
  const withItemsAndRuns = async (d: StoredDataset) => ({
    ...publicDataset(d),
    items: (await listItemsOfDatasets(ctx.db, d.projectId, [d.id])).map(publicDatasetItem),
    runs: (await runNamesOfDatasets(ctx.db, d.projectId, [d.id])).get(d.id) ?? [],
  });

  app.post<{ Body: DatasetInput }>('/v2/datasets', { schema: { body: createSchema }, onRequest }, async (req) =>
    publicDataset(await upsertDataset(ctx.db, projectOf(req).id, req.body)),
  );
  app.post<{ Body: DatasetInput }>('/datasets', { schema: { body: createSchema }, onRequest }, async (req) =>
    withItemsAndRuns(await upsertDataset(ctx.db, projectOf(req).id, req.body)),
  );

  app.get<{ Querystring: PageQuery }>(
    '/v2/datasets',
    { schema: { querystring: pageQuerySchema }, onRequest },
    async (req) => {
      const { data, total } = await listDatasets(ctx.db, projectOf(req).id, {
        limit: req.query.limit,
        offset: pageOffset(req.query),
      });
      return { data: data.map(publicDataset), meta: pageMeta(req.query, total) };
    },
  );
  app.get<{ Querystring: PageQuery }>(
    '/datasets',
    { schema: { querystring: pageQuerySchema }, onRequest },
    async (req) => {
      const projectId = projectOf(req).id;
      const { data, total } = await listDatasets(ctx.db, projectId, {
        limit: req.query.limit,
        offset: pageOffset(req.query),
      });
      const ids = data.map((d) => d.id);
      const items = await listItemsOfDatasets(ctx.db, projectId, ids);
      const runs = await runNamesOfDatasets(ctx.db, projectId, ids);
      return {
        data: data.map((d) => ({
          ...publicDataset(d),
          items: items.filter((i) => i.datasetId === d.id).map((i) => i.id),
          runs: runs.get(d.id) ?? [],
        })),
        meta: pageMeta(req.query, total),
      };
    },
  );

  app.get<{ Params: NameParams }>('/v2/datasets/:datasetName', { onRequest }, async (req) =>
    publicDataset(await requireDataset(ctx.db, projectOf(req).id, req.params.datasetName)),
  );
  app.get<{ Params: NameParams }>('/datasets/:datasetName', { onRequest }, async (req) =>
    withItemsAndRuns(await requireDataset(ctx.db, projectOf(req).id, req.params.datasetName)),
  );
}
