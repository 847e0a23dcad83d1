// What the project-scoped dashboard routes share: the `:project` path parameter resolved to a project of the
// organization the dashboard serves.
import type { FastifyRequest } from 'fastify';
import { getProject, type Project } from '../../src/platform/store/repos/projects.ts';
import type { AdminContext } from '../context.ts';
import { DashboardApiError } from './dashboard-error.ts';

/** The project named by `:project`; 404 for an unknown one or one of another organization. */
export async function projectOf(ctx: AdminContext, req: FastifyRequest): Promise<Project> {
  const id = (req.params as { project: string }).project;
  const project = await getProject(ctx.db, id);
  if (!project || project.organizationId !== ctx.config().organization.id)
    throw new DashboardApiError('not_found', `No project '${id}'`);
  return project;
}

/** A `:name`-style parameter that must match a row: 404 naming it when `found` is undefined. */
export function found<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new DashboardApiError('not_found', `No ${what}`);
  return value;
}
