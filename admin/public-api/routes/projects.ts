// GET {base_url}/api/public/projects: with a project key, the project of the key (docs/public-api.md); the SDKs'
// credential check (Python auth_check) calls it, so ingestion-only projects may too, and it is never rate limited. With
// an organization key, the organization's projects (organization endpoints, organization.ts).
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../../context.ts';
import { principalOf, projectOf, requireEitherKey } from '../route-access.ts';
import { listProjects, type Project } from '../../../src/platform/store/repos/projects.ts';

/** A project in Langfuse's shape. */
export function projectBody(project: Project) {
  return {
    id: project.id,
    name: project.name,
    organization: { id: project.organizationId, name: project.organizationName },
    metadata: project.metadata,
    // Langfuse omits it when data is kept forever.
    ...(project.retentionDays > 0 ? { retentionDays: project.retentionDays } : {}),
  };
}

export function registerPublicProjects(app: FastifyInstance, ctx: AdminContext): void {
  app.get('/projects', { onRequest: requireEitherKey(ctx, 'credentials') }, async (req) => {
    const { apiKey } = principalOf(req);
    if (apiKey.kind === 'organization')
      return { data: (await listProjects(ctx.db, apiKey.organizationId)).map(projectBody) };
    return { data: [projectBody(projectOf(req))] };
  });
}
