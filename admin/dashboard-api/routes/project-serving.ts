// A project's gateway serving switch (docs/dashboard.md "Gateway"): off, every gateway key of the project is refused
// with 401 invalid_api_key, in this process at once and on the other replicas within store.key_poll_ms. gateway.yaml's
// `serving: false` wins: the dashboard can turn a project off, never on against the file. Admins and owners change
// it; each change is audited.
import type { FastifyInstance } from 'fastify';
import { getProject, setProjectServing, type Project } from '../../../src/platform/store/repos/projects.ts';
import type { AdminContext } from '../../context.ts';
import { auditDashboardChange } from '../dashboard-audit.ts';
import { refreshKeyCache } from '../key-cache.ts';
import { projectOf } from '../project-scope.ts';
import { requireSession } from '../session-guard.ts';

const CHANGE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['serving'],
  properties: { serving: { type: 'boolean' } },
};

export function registerDashboardProjectServing(app: FastifyInstance, ctx: AdminContext): void {
  const servingInConfig = (projectId: string) =>
    ctx.config().projects.find((p) => p.id === projectId)?.serving !== false;
  /** `serving`: the dashboard's switch; `servingInConfig`: gateway.yaml's; `effective`: whether keys work (both on). */
  const view = (p: Project) => {
    const inConfig = servingInConfig(p.id);
    return { serving: p.serving, servingInConfig: inConfig, effective: p.serving && inConfig };
  };

  app.get('/projects/:project/serving', { onRequest: requireSession(ctx, 'viewer') }, async (req) =>
    view(await projectOf(ctx, req)),
  );

  app.put<{ Body: { serving: boolean } }>(
    '/projects/:project/serving',
    { onRequest: requireSession(ctx, 'admin'), schema: { body: CHANGE_SCHEMA } },
    async (req) => {
      const project = await projectOf(ctx, req);
      const { serving } = req.body;
      const changed = await ctx.db.transaction(async (tx) => {
        await setProjectServing(tx, project.id, serving);
        await auditDashboardChange(tx, req, project, {
          action: serving ? 'project.serving_on' : 'project.serving_off',
          resourceType: 'project',
          resourceId: project.id,
          details: { from: project.serving, to: serving, servingInConfig: servingInConfig(project.id) },
        });
        return (await getProject(tx, project.id))!;
      });
      await refreshKeyCache(ctx);
      return view(changed);
    },
  );
}
