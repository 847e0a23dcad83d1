// Score configs of the public API (docs/public-api.md "Datasets and score configs"): POST and GET /score-configs, GET
// and PATCH /score-configs/{configId}. Scores that name a config are checked against it
// (src/observability/ingestion/score-input.ts).
import type { FastifyInstance } from 'fastify';
import createSchema from '../../../schemas/api/public-score-config-create.json' with { type: 'json' };
import updateSchema from '../../../schemas/api/public-score-config-update.json' with { type: 'json' };
import pageQuerySchema from '../../../schemas/api/public-page-query.json' with { type: 'json' };
import {
  newScoreConfigFields,
  storableScoreConfig,
  withoutServerCategories,
  type NewScoreConfig,
} from '../../../src/observability/scores/score-config-rules.ts';
import {
  createScoreConfig,
  getScoreConfig,
  listScoreConfigs,
  updateScoreConfig,
  type ScoreConfigFields,
  type StoredScoreConfig,
} from '../../../src/platform/store/repos/score-configs.ts';
import type { AdminContext } from '../../context.ts';
import { pageMeta, pageOffset, type PageQuery } from '../paging.ts';
import { invalidRequestData, PublicApiError } from '../public-error.ts';
import { projectOf, requireKey } from '../route-access.ts';

type UpdateBody = Partial<Omit<ScoreConfigFields, 'dataType'>>;
type ConfigParams = { configId: string };

/** Langfuse's ScoreConfig object. */
export function publicScoreConfig(c: StoredScoreConfig) {
  return {
    id: c.id,
    name: c.name,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    projectId: c.projectId,
    dataType: c.dataType,
    isArchived: c.isArchived,
    minValue: c.minValue,
    maxValue: c.maxValue,
    categories: c.categories,
    description: c.description,
  };
}

function checked(fields: ScoreConfigFields): ScoreConfigFields {
  const storable = storableScoreConfig(fields);
  if ('issues' in storable) throw invalidRequestData(storable.issues);
  return storable.config;
}

const configNotFound = () => new PublicApiError('NotFoundError', 'Score config not found within authorized project');

export function registerPublicScoreConfigs(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireKey(ctx, 'project');

  app.post<{ Body: NewScoreConfig }>('/score-configs', { schema: { body: createSchema }, onRequest }, async (req) => {
    const fields = checked(newScoreConfigFields(req.body));
    return publicScoreConfig(await createScoreConfig(ctx.db, projectOf(req).id, fields));
  });

  app.get<{ Querystring: PageQuery }>(
    '/score-configs',
    { schema: { querystring: pageQuerySchema }, onRequest },
    async (req) => {
      const { data, total } = await listScoreConfigs(ctx.db, projectOf(req).id, {
        limit: req.query.limit,
        offset: pageOffset(req.query),
      });
      return { data: data.map(publicScoreConfig), meta: pageMeta(req.query, total) };
    },
  );

  app.get<{ Params: ConfigParams }>('/score-configs/:configId', { onRequest }, async (req) => {
    const config = await getScoreConfig(ctx.db, projectOf(req).id, req.params.configId);
    if (!config) throw configNotFound();
    return publicScoreConfig(config);
  });

  app.patch<{ Params: ConfigParams; Body: UpdateBody }>(
    '/score-configs/:configId',
    { schema: { body: updateSchema }, onRequest },
    async (req) => {
      const projectId = projectOf(req).id;
      const stored = await getScoreConfig(ctx.db, projectId, req.params.configId);
      if (!stored) throw configNotFound();
      const fields = checked({ ...withoutServerCategories(stored), ...req.body });
      const updated = await updateScoreConfig(ctx.db, projectId, stored.id, fields);
      if (!updated) throw configNotFound();
      return publicScoreConfig(updated);
    },
  );
}
