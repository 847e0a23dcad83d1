// GET /dashboard/api/projects and /dashboard/api/audit: the organization's projects, and its audit log newest first.
import type { FastifyInstance } from 'fastify';
import { listOrganizationAudit } from '../../../src/platform/store/repos/audit-log.ts';
import { listProjects } from '../../../src/platform/store/repos/projects.ts';
import type { AdminContext } from '../../context.ts';
import { pagination, PAGING_QUERY_SCHEMA, type PagingQuery } from '../paging.ts';
import { requireSession } from '../session-guard.ts';

export function registerOverviewRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireSession(ctx, 'viewer');

  app.get('/projects', { onRequest }, async () => {
    const projects = await listProjects(ctx.db, ctx.config().organization.id);
    return { data: projects.map((p) => ({ id: p.id, name: p.name })) };
  });

  app.get<{ Querystring: PagingQuery }>(
    '/audit',
    { onRequest, schema: { querystring: PAGING_QUERY_SCHEMA } },
    async (req) => {
      const { data: rows, total } = await listOrganizationAudit(ctx.db, ctx.config().organization.id, req.query);
      const data = rows.map((r) => ({
        id: r.id,
        at: r.at,
        actor: r.actor,
        action: r.action,
        // `<resource type>:<id>`, e.g. `user:3f1c…`, `api_key:…`
        target: r.resourceId === undefined ? r.resourceType : `${r.resourceType}:${r.resourceId}`,
        projectId: r.projectId ?? null,
        details: r.details,
      }));
      return { data, pagination: pagination(req.query, total) };
    },
  );
}
