// Dataset runs and run items of the public API (docs/public-api.md "Datasets and score configs"): GET
// /datasets/{name}/runs, GET and DELETE /datasets/{name}/runs/{runName}, POST /dataset-run-items (creates the run by
// name when new), GET /dataset-run-items.
import type { FastifyInstance } from 'fastify';
import pageQuerySchema from '../../../schemas/api/public-page-query.json' with { type: 'json' };
import createSchema from '../../../schemas/api/public-dataset-run-item-create.json' with { type: 'json' };
import listQuerySchema from '../../../schemas/api/public-dataset-run-items-query.json' with { type: 'json' };
import type { Queryable } from '../../../src/platform/store/database.ts';
import { getDatasetItem } from '../../../src/platform/store/repos/dataset-items.ts';
import {
  allRunItems,
  createRunItem,
  deleteRun,
  getRun,
  listRunItems,
  listRuns,
  type StoredDatasetRun,
  type StoredDatasetRunItem,
} from '../../../src/platform/store/repos/dataset-runs.ts';
import { getObservation } from '../../../src/platform/store/repos/observations.ts';
import type { AdminContext } from '../../context.ts';
import { pageMeta, pageOffset, type PageQuery } from '../paging.ts';
import { invalidRequestData, PublicApiError } from '../public-error.ts';
import { projectOf, requireKey } from '../route-access.ts';
import { requireDataset, unversioned } from './datasets.ts';

interface CreateBody {
  runName: string;
  runDescription?: string | null;
  metadata?: unknown;
  datasetItemId: string;
  traceId?: string | null;
  observationId?: string | null;
  createdAt?: string | null;
  datasetVersion?: unknown;
}
type ListQuery = PageQuery & { datasetId: string; runName: string };
type DatasetParams = { datasetName: string };
type RunParams = DatasetParams & { runName: string };

/** Langfuse's DatasetRun object. */
export function publicDatasetRun(r: StoredDatasetRun) {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    metadata: r.metadata,
    datasetId: r.datasetId,
    datasetName: r.datasetName,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** Langfuse's DatasetRunItem object. */
export function publicDatasetRunItem(i: StoredDatasetRunItem) {
  return {
    id: i.id,
    datasetRunId: i.datasetRunId,
    datasetRunName: i.datasetRunName,
    datasetItemId: i.datasetItemId,
    traceId: i.traceId,
    observationId: i.observationId,
    createdAt: i.createdAt,
    updatedAt: i.updatedAt,
  };
}

const runNotFound = () => new PublicApiError('NotFoundError', 'Dataset run not found');
const itemNotFound = () => new PublicApiError('NotFoundError', 'Dataset item not found');

/** The trace a run item links: the one given, else the trace of the observation given (Langfuse's older linking). */
async function traceOf(db: Queryable, projectId: string, body: CreateBody): Promise<string> {
  if (body.traceId) return body.traceId;
  if (!body.observationId)
    throw invalidRequestData([{ path: ['traceId'], message: 'traceId or observationId is required' }]);
  const observation = await getObservation(db, projectId, body.observationId);
  if (!observation) throw new PublicApiError('NotFoundError', 'Observation not found');
  return observation.traceId;
}

export function registerPublicDatasetRuns(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireKey(ctx, 'project');

  const requireRun = async (projectId: string, params: RunParams) => {
    const dataset = await requireDataset(ctx.db, projectId, params.datasetName);
    const run = await getRun(ctx.db, projectId, dataset.id, params.runName);
    if (!run) throw runNotFound();
    return run;
  };

  app.get<{ Params: DatasetParams; Querystring: PageQuery }>(
    '/datasets/:datasetName/runs',
    { schema: { querystring: pageQuerySchema }, onRequest },
    async (req) => {
      const projectId = projectOf(req).id;
      const dataset = await requireDataset(ctx.db, projectId, req.params.datasetName);
      const { data, total } = await listRuns(ctx.db, projectId, dataset.id, {
        limit: req.query.limit,
        offset: pageOffset(req.query),
      });
      return { data: data.map(publicDatasetRun), meta: pageMeta(req.query, total) };
    },
  );

  app.get<{ Params: RunParams }>('/datasets/:datasetName/runs/:runName', { onRequest }, async (req) => {
    const projectId = projectOf(req).id;
    const run = await requireRun(projectId, req.params);
    return {
      ...publicDatasetRun(run),
      datasetRunItems: (await allRunItems(ctx.db, projectId, run.id)).map(publicDatasetRunItem),
    };
  });

  app.delete<{ Params: RunParams }>('/datasets/:datasetName/runs/:runName', { onRequest }, async (req) => {
    const projectId = projectOf(req).id;
    const run = await requireRun(projectId, req.params);
    if (!(await deleteRun(ctx.db, projectId, run.id))) throw runNotFound();
    return { message: 'Dataset run successfully deleted' };
  });

  app.post<{ Body: CreateBody }>('/dataset-run-items', { schema: { body: createSchema }, onRequest }, async (req) => {
    const projectId = projectOf(req).id;
    const body = req.body;
    if (body.datasetVersion != null) throw unversioned('datasetVersion');
    const item = await getDatasetItem(ctx.db, projectId, body.datasetItemId);
    if (!item || item.status !== 'ACTIVE') throw itemNotFound();
    const traceId = await traceOf(ctx.db, projectId, body);
    const runItem = await createRunItem(ctx.db, projectId, {
      runName: body.runName,
      runDescription: body.runDescription,
      metadata: body.metadata,
      datasetId: item.datasetId,
      datasetItemId: item.id,
      traceId,
      observationId: body.observationId,
      createdAt: body.createdAt ?? undefined,
    });
    return publicDatasetRunItem(runItem);
  });

  app.get<{ Querystring: ListQuery }>(
    '/dataset-run-items',
    { schema: { querystring: listQuerySchema }, onRequest },
    async (req) => {
      const projectId = projectOf(req).id;
      const q = req.query;
      const run = await getRun(ctx.db, projectId, q.datasetId, q.runName);
      if (!run) throw new PublicApiError('NotFoundError', 'Dataset run not found for the given project and dataset id');
      const { data, total } = await listRunItems(ctx.db, projectId, run.id, { limit: q.limit, offset: pageOffset(q) });
      return { data: data.map(publicDatasetRunItem), meta: pageMeta(q, total) };
    },
  );
}
