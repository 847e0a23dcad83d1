// Audit rows for changes made through the dashboard: actor `dashboard:<email>`, in the changing transaction.
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../../src/store/database.ts';
import { writeAudit } from '../../src/store/repos/audit-log.ts';
import type { Project } from '../../src/store/repos/projects.ts';
import { dashboardActor, dashboardUserOf } from './session-guard.ts';

export interface AuditedChange {
  action: string;
  resourceType: string;
  resourceId: string;
  details?: Record<string, unknown>;
}

export function auditDashboardChange(
  tx: Queryable,
  req: FastifyRequest,
  project: Pick<Project, 'id' | 'organizationId'>,
  change: AuditedChange,
): Promise<void> {
  return writeAudit(tx, {
    organizationId: project.organizationId,
    projectId: project.id,
    actor: dashboardActor(dashboardUserOf(req)),
    ...change,
  });
}
