// Dashboard prompts: names (a name holding `/` sits in folders), every version of a name, what used each version
// (generations linked by promptName/promptVersion), and setting the exact label set of a version. Label moves go
// through the repository the public API uses, so they fire the same prompt-version webhooks (an `updated` event per
// version touched); each is audited as `dashboard:<email>`.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { withStatementTimeout, type Queryable } from '../../../src/platform/store/database.ts';
import { promptVersionGenerations, promptVersionUsage } from '../../../src/platform/store/repos/prompt-usage.ts';
import publicLabels from '../../../schemas/api/public-prompt-labels.json' with { type: 'json' };
import {
  listPrompts,
  listPromptVersions,
  PromptError,
  setPromptLabels,
  type Relabelled,
} from '../../../src/platform/store/repos/prompts.ts';
import type { Project } from '../../../src/platform/store/repos/projects.ts';
import type { AdminContext } from '../../context.ts';
import { publicPrompt } from '../../public-api/routes/prompts.ts';
import { auditDashboardChange } from '../dashboard-audit.ts';
import { projectOf } from '../project-scope.ts';
import { DashboardApiError } from '../dashboard-error.ts';
import { requireSession } from '../session-guard.ts';

type NameParams = { project: string; name: string };
type VersionParams = NameParams & { version: number };

const versionParams = {
  type: 'object',
  required: ['project', 'name', 'version'],
  properties: {
    project: { type: 'string' },
    name: { type: 'string', minLength: 1 },
    version: { type: 'integer', minimum: 1, maximum: 2147483647 },
  },
};
const labelsBody = {
  type: 'object',
  additionalProperties: false,
  required: ['labels'],
  // A label is what the public API accepts.
  properties: { labels: { type: 'array', uniqueItems: true, items: publicLabels.properties.newLabels.items } },
};

/** Every name at once: the dashboard groups them into folders itself. */
const ALL_NAMES = 100_000;
/** The newest generations of a version listed on its page. */
const GENERATIONS_SHOWN = 20;

const folderOf = (name: string) => (name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : null);

const fromRepo = (err: unknown) =>
  err instanceof PromptError
    ? new DashboardApiError(err.kind === 'not_found' ? 'not_found' : 'invalid_request', err.message, { cause: err })
    : err;

/** The audit row of a label change: the version's labels before and after, and the versions a moved label left. */
const auditLabels = (req: FastifyRequest, project: Project) => (tx: Queryable, c: Relabelled) =>
  auditDashboardChange(tx, req, project, {
    action: 'prompt.labels',
    resourceType: 'prompt',
    resourceId: c.after.id,
    details: {
      name: c.after.name,
      version: c.after.version,
      from: c.before.labels,
      to: c.after.labels,
      movedFrom: c.others.map((p) => ({ version: p.version, labels: p.labels })),
    },
  });

export function registerDashboardPrompts(app: FastifyInstance, ctx: AdminContext): void {
  const read = requireSession(ctx, 'viewer');
  const reads = () => withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);

  app.get('/projects/:project/prompts', { onRequest: read }, async (req) => {
    const project = await projectOf(ctx, req);
    const { data } = await listPrompts(ctx.db, project.id, { limit: ALL_NAMES, offset: 0 });
    return {
      data: data.map((p) => ({
        name: p.name,
        folder: folderOf(p.name),
        type: p.type,
        versions: p.versions,
        labels: p.labels,
        tags: p.tags,
        lastUpdatedAt: p.lastUpdatedAt,
      })),
    };
  });

  // The router matches before decoding, so a percent-encoded `folder%2Fname` arrives whole in `:name`.
  app.get<{ Params: NameParams }>('/projects/:project/prompts/:name', { onRequest: read }, async (req) => {
    const project = await projectOf(ctx, req);
    const versions = await listPromptVersions(ctx.db, project.id, req.params.name);
    if (versions.length === 0) throw new DashboardApiError('not_found', `No prompt '${req.params.name}'`);
    return { name: req.params.name, versions: versions.map(publicPrompt) };
  });

  app.get<{ Params: NameParams }>('/projects/:project/prompts/:name/usage', { onRequest: read }, async (req) => {
    const project = await projectOf(ctx, req);
    return { data: await promptVersionUsage(reads(), project.id, req.params.name) };
  });

  app.get<{ Params: VersionParams }>(
    '/projects/:project/prompts/:name/versions/:version/generations',
    { onRequest: read, schema: { params: versionParams } },
    async (req) => {
      const project = await projectOf(ctx, req);
      return { data: await promptVersionGenerations(reads(), project.id, req.params, GENERATIONS_SHOWN) };
    },
  );

  app.put<{ Params: VersionParams; Body: { labels: string[] } }>(
    '/projects/:project/prompts/:name/versions/:version/labels',
    { onRequest: requireSession(ctx, 'member'), schema: { params: versionParams, body: labelsBody } },
    async (req) => {
      const project = await projectOf(ctx, req);
      const { name, version } = req.params;
      const updated = await setPromptLabels(ctx.db, project.id, name, version, req.body.labels, {
        events: ctx.promptEvents,
        audit: auditLabels(req, project),
      }).catch((err) => Promise.reject(fromRepo(err)));
      return publicPrompt(updated);
    },
  );
}
