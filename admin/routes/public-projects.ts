// GET {base_url}/api/public/projects: the project of the key (spec 4 A2). The SDKs' credential check (Python
// auth_check) calls it, so ingestion-only projects may too, and it is never rate limited.
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../context.ts';
import { projectOf, requireKey } from '../public-api/route-access.ts';

export function registerPublicProjects(app: FastifyInstance, ctx: AdminContext): void {
  app.get('/projects', { onRequest: requireKey(ctx, 'credentials') }, async (req) => {
    const project = projectOf(req);
    return {
      data: [
        {
          id: project.id,
          name: project.name,
          organization: { id: project.organizationId, name: project.organizationName },
          metadata: project.metadata,
        },
      ],
    };
  });
}
