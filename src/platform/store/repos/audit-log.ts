import type { Queryable } from '../database.ts';
import { selectPage, type PageWindow } from './page.ts';
import { iso, json } from './rows.ts';

export interface AuditEntry {
  organizationId?: string;
  projectId?: string;
  /** Who did it: `api-key:<id>`, `cli`, `config`, `dashboard:<user>`. */
  actor: string;
  action: string;
  resourceType: string;
  resourceId?: string;
  details?: Record<string, unknown>;
}

export interface StoredAuditEntry extends AuditEntry {
  id: string;
  at: string;
  details: Record<string, unknown>;
}

/** A change to a resource of a project, as its audit row names it. */
export interface ProjectChange {
  action: string;
  resourceType: string;
  resourceId: string;
  details?: Record<string, unknown>;
}

/** The audit row of a change to one of the project's resources, by `actor`. */
export function writeProjectAudit(
  db: Queryable,
  project: { id: string; organizationId?: string },
  actor: string,
  change: ProjectChange,
): Promise<void> {
  return writeAudit(db, { organizationId: project.organizationId, projectId: project.id, actor, ...change });
}

export async function writeAudit(db: Queryable, e: AuditEntry): Promise<void> {
  await db.query(
    `INSERT INTO audit_log (organization_id, project_id, actor, action, resource_type, resource_id, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7::text::jsonb)`,
    [
      e.organizationId ?? null,
      e.projectId ?? null,
      e.actor,
      e.action,
      e.resourceType,
      e.resourceId ?? null,
      json(e.details ?? {}),
    ],
  );
}

function toAuditEntry(x: Record<string, any>): StoredAuditEntry {
  return {
    id: String(x.id),
    at: iso(x.at)!,
    organizationId: x.organization_id ?? undefined,
    projectId: x.project_id ?? undefined,
    actor: x.actor,
    action: x.action,
    resourceType: x.resource_type,
    resourceId: x.resource_id ?? undefined,
    details: x.details ?? {},
  };
}

/** The project's newest rows. */
export async function listAudit(db: Queryable, projectId: string, limit = 100): Promise<StoredAuditEntry[]> {
  const r = await db.query<Record<string, any>>(
    'SELECT * FROM audit_log WHERE project_id = $1 ORDER BY id DESC LIMIT $2',
    [projectId, limit],
  );
  return r.rows.map(toAuditEntry);
}

/** The organization's log as the dashboard reads it, newest first, in pages: its rows, and rows that name none. */
export async function listOrganizationAudit(
  db: Queryable,
  organizationId: string,
  page: PageWindow,
): Promise<{ data: StoredAuditEntry[]; total: number }> {
  return selectPage(
    db,
    {
      columns: '*',
      from: 'audit_log',
      where: '(organization_id = $1 OR organization_id IS NULL)',
      params: [organizationId],
      orderBy: 'id DESC',
    },
    page,
    toAuditEntry,
  );
}
