// Models and prices of the public API (docs/public-api.md "Models — /api/public/models"): GET/POST /models, GET/DELETE
// /models/{id}. Lists hold the project's models (newest first) and then the built-ins; ingestion prices generations
// with them (src/observability/ingestion/generation-cost.ts), so a create or delete drops this process's cached matcher
// for the project.
import type { FastifyInstance } from 'fastify';
import createSchema from '../../../schemas/api/public-model-create.json' with { type: 'json' };
import pageQuerySchema from '../../../schemas/api/public-page-query.json' with { type: 'json' };
import { BUILTIN_MODELS } from '../../../src/platform/pricing/builtin-models.ts';
import { forgetProjectModels } from '../../../src/platform/pricing/model-cache.ts';
import { modelOf, type ModelCreateBody } from '../../../src/platform/pricing/model-input.ts';
import {
  defaultTier,
  deleteModel,
  getModel,
  insertModel,
  listModels,
  type ModelDefinition,
} from '../../../src/platform/store/repos/models.ts';
import type { AdminContext } from '../../context.ts';
import { pageMeta, pageOffset, type PageQuery } from '../paging.ts';
import { invalidRequestData, PublicApiError } from '../public-error.ts';
import { projectOf, requireKey } from '../route-access.ts';

type IdParams = { id: string };

/** Langfuse's Model: flat prices and `prices` come from the default tier. */
export function publicModel(m: ModelDefinition) {
  const prices = defaultTier(m)?.prices ?? {};
  return {
    id: m.id,
    modelName: m.modelName,
    matchPattern: m.matchPattern,
    startDate: m.startDate,
    unit: m.unit,
    inputPrice: prices.input ?? null,
    outputPrice: prices.output ?? null,
    totalPrice: prices.total ?? null,
    tokenizerId: m.tokenizerId,
    tokenizerConfig: m.tokenizerConfig,
    isLangfuseManaged: m.projectId === null,
    createdAt: m.createdAt,
    prices: Object.fromEntries(Object.entries(prices).map(([key, price]) => [key, { price }])),
    pricingTiers: m.pricingTiers,
  };
}

const notFound = (id: string) => new PublicApiError('NotFoundError', `Model ${id} not found within authorized project`);
const builtin = (id: string) => BUILTIN_MODELS.find((m) => m.id === id);

export function registerPublicModels(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireKey(ctx, 'project');

  app.get<{ Querystring: PageQuery }>(
    '/models',
    { schema: { querystring: pageQuerySchema }, onRequest },
    async (req) => {
      // A project has a handful of models: the page is cut from the whole list, project models before built-ins.
      const all = [...(await listModels(ctx.db, projectOf(req).id)), ...BUILTIN_MODELS];
      const offset = pageOffset(req.query);
      return {
        data: all.slice(offset, offset + req.query.limit).map(publicModel),
        meta: pageMeta(req.query, all.length),
      };
    },
  );

  app.post<{ Body: ModelCreateBody }>('/models', { schema: { body: createSchema }, onRequest }, async (req) => {
    const project = projectOf(req);
    const checked = modelOf(project.id, req.body);
    if ('issues' in checked) throw invalidRequestData(checked.issues);
    const model = await insertModel(ctx.db, checked.model);
    forgetProjectModels(ctx.db, project.id);
    return publicModel(model);
  });

  app.get<{ Params: IdParams }>('/models/:id', { onRequest }, async (req) => {
    const model = (await getModel(ctx.db, projectOf(req).id, req.params.id)) ?? builtin(req.params.id);
    if (!model) throw notFound(req.params.id);
    return publicModel(model);
  });

  app.delete<{ Params: IdParams }>('/models/:id', { onRequest }, async (req) => {
    const { id } = req.params;
    if (builtin(id)) {
      throw new PublicApiError(
        'NotFoundError',
        `Model ${id} is a built-in model and cannot be deleted; to change its prices, create a model with the same matchPattern (project models are matched first)`,
      );
    }
    const project = projectOf(req);
    if (!(await deleteModel(ctx.db, project.id, id))) throw notFound(id);
    forgetProjectModels(ctx.db, project.id);
    return { message: 'Model successfully deleted' };
  });
}
