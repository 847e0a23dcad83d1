// Dashboard score configs: every config of the project (archived ones too), creating one, and archiving or
// restoring one. The rules per data type are the public API's (src/observability/scores/score-config-rules.ts).
import type { FastifyInstance } from 'fastify';
import createSchema from '../../../schemas/api/public-score-config-create.json' with { type: 'json' };
import {
  newScoreConfigFields,
  storableScoreConfig,
  type NewScoreConfig,
} from '../../../src/observability/scores/score-config-rules.ts';
import {
  createScoreConfig,
  getScoreConfig,
  listScoreConfigs,
  updateScoreConfig,
  type ScoreConfigFields,
} from '../../../src/platform/store/repos/score-configs.ts';
import type { AdminContext } from '../../context.ts';
import { publicScoreConfig } from '../../public-api/routes/score-configs.ts';
import { invalidIssues } from '../dashboard-error.ts';
import { found, projectOf } from '../project-scope.ts';
import { requireSession } from '../session-guard.ts';

type ConfigParams = { project: string; id: string };

/** Every config at once: a project has a handful, and the queue and trace pages offer all of them. */
const ALL_CONFIGS = 10_000;

const archiveBody = {
  type: 'object',
  additionalProperties: false,
  required: ['isArchived'],
  properties: { isArchived: { type: 'boolean' } },
};

function storable(fields: ScoreConfigFields): ScoreConfigFields {
  const checked = storableScoreConfig(fields);
  if ('issues' in checked) throw invalidIssues(checked.issues);
  return checked.config;
}

export function registerDashboardScoreConfigs(app: FastifyInstance, ctx: AdminContext): void {
  const change = requireSession(ctx, 'member');

  app.get('/projects/:project/score-configs', { onRequest: requireSession(ctx, 'viewer') }, async (req) => {
    const project = await projectOf(ctx, req);
    const { data } = await listScoreConfigs(ctx.db, project.id, { limit: ALL_CONFIGS, offset: 0 });
    return { data: data.map(publicScoreConfig) };
  });

  app.post<{ Body: NewScoreConfig }>(
    '/projects/:project/score-configs',
    { onRequest: change, schema: { body: createSchema } },
    async (req) => {
      const project = await projectOf(ctx, req);
      return publicScoreConfig(await createScoreConfig(ctx.db, project.id, storable(newScoreConfigFields(req.body))));
    },
  );

  app.put<{ Params: ConfigParams; Body: { isArchived: boolean } }>(
    '/projects/:project/score-configs/:id/archived',
    { onRequest: change, schema: { body: archiveBody } },
    async (req) => {
      const project = await projectOf(ctx, req);
      const what = `score config '${req.params.id}'`;
      const stored = found(await getScoreConfig(ctx.db, project.id, req.params.id), what);
      const updated = await updateScoreConfig(ctx.db, project.id, stored.id, {
        ...stored,
        isArchived: req.body.isArchived,
      });
      return publicScoreConfig(found(updated, what));
    },
  );
}
