// Dataset items of the public API (docs/public-api.md "Datasets and score configs"): POST /dataset-items (upsert by
// id), GET /dataset-items (ACTIVE items, filtered), GET and DELETE /dataset-items/{id}.
import type { FastifyInstance } from 'fastify';
import createSchema from '../../../schemas/api/public-dataset-item-create.json' with { type: 'json' };
import listQuerySchema from '../../../schemas/api/public-dataset-items-query.json' with { type: 'json' };
import {
  deleteDatasetItem,
  getDatasetItem,
  listDatasetItems,
  upsertDatasetItem,
  type DatasetItemInput,
} from '../../../src/platform/store/repos/dataset-items.ts';
import type { AdminContext } from '../../context.ts';
import { pageMeta, pageOffset, type PageQuery } from '../paging.ts';
import { PublicApiError } from '../public-error.ts';
import { projectOf, requireKey } from '../route-access.ts';
import { publicDatasetItem, requireDataset, unversioned } from './datasets.ts';

type CreateBody = DatasetItemInput & { datasetName: string; id?: string | null };
type ListQuery = PageQuery & {
  datasetName?: string;
  sourceTraceId?: string;
  sourceObservationId?: string;
  version?: string;
};
type IdParams = { id: string };

const itemNotFound = () => new PublicApiError('NotFoundError', 'Dataset item not found');

export function registerPublicDatasetItems(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireKey(ctx, 'project');

  app.post<{ Body: CreateBody }>('/dataset-items', { schema: { body: createSchema }, onRequest }, async (req) => {
    const projectId = projectOf(req).id;
    const { datasetName, id, ...fields } = req.body;
    const dataset = await requireDataset(ctx.db, projectId, datasetName);
    const item = await upsertDatasetItem(ctx.db, projectId, dataset.id, { ...fields, id: id ?? undefined });
    // Langfuse answers 404 here; the id is taken, so we say conflict.
    if (!item)
      throw new PublicApiError(
        'ConflictError',
        `The dataset item with id ${id} already exists in a dataset other than ${datasetName}`,
      );
    return publicDatasetItem(item);
  });

  app.get<{ Querystring: ListQuery }>(
    '/dataset-items',
    { schema: { querystring: listQuerySchema }, onRequest },
    async (req) => {
      const projectId = projectOf(req).id;
      const q = req.query;
      if (q.version !== undefined) throw unversioned('version');
      const datasetId =
        q.datasetName === undefined ? undefined : (await requireDataset(ctx.db, projectId, q.datasetName)).id;
      const filter = { datasetId, sourceTraceId: q.sourceTraceId, sourceObservationId: q.sourceObservationId };
      const { data, total } = await listDatasetItems(ctx.db, projectId, filter, {
        limit: q.limit,
        offset: pageOffset(q),
      });
      return { data: data.map(publicDatasetItem), meta: pageMeta(q, total) };
    },
  );

  app.get<{ Params: IdParams }>('/dataset-items/:id', { onRequest }, async (req) => {
    const item = await getDatasetItem(ctx.db, projectOf(req).id, req.params.id);
    if (!item) throw itemNotFound();
    return publicDatasetItem(item);
  });

  app.delete<{ Params: IdParams }>('/dataset-items/:id', { onRequest }, async (req) => {
    if (!(await deleteDatasetItem(ctx.db, projectOf(req).id, req.params.id))) throw itemNotFound();
    return { message: 'Dataset item successfully deleted' };
  });
}
