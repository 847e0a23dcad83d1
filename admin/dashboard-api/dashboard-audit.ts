// Audit rows for changes made through the dashboard: actor `dashboard:<email>`, in the changing transaction.
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../../src/platform/store/database.ts';
import { writeProjectAudit, type ProjectChange } from '../../src/platform/store/repos/audit-log.ts';
import type { Project } from '../../src/platform/store/repos/projects.ts';
import { dashboardActor, dashboardUserOf } from './session-guard.ts';

/** Who a change made through the dashboard is by, as the use cases (`by`) take it. */
export const byDashboardUser = (req: FastifyRequest) => ({ actor: dashboardActor(dashboardUserOf(req)) });

export function auditDashboardChange(
  tx: Queryable,
  req: FastifyRequest,
  project: Pick<Project, 'id' | 'organizationId'>,
  change: ProjectChange,
): Promise<void> {
  return writeProjectAudit(tx, project, byDashboardUser(req).actor, change);
}
