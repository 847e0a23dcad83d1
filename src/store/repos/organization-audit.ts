// The organization's audit log as the dashboard reads it: newest first, in pages (rows are written by audit-log.ts).
import type { Queryable } from '../database.ts';
import { iso, num } from './rows.ts';

export interface AuditRow {
  id: string;
  at: string;
  actor: string;
  action: string;
  projectId?: string;
  resourceType: string;
  resourceId?: string;
  details: Record<string, unknown>;
}

/** Rows of the organization, and rows that name none (written before a project was known). */
export async function listOrganizationAudit(db: Queryable, organizationId: string, page: { limit: number; offset: number }): Promise<{ rows: AuditRow[]; total: number }> {
  const where = 'organization_id = $1 OR organization_id IS NULL';
  const total = await db.query<{ n: unknown }>(`SELECT count(*) AS n FROM audit_log WHERE ${where}`, [organizationId]);
  const r = await db.query<Record<string, any>>(`SELECT * FROM audit_log WHERE ${where} ORDER BY id DESC LIMIT $2 OFFSET $3`, [organizationId, page.limit, page.offset]);
  const rows = r.rows.map((x) => ({
    id: String(x.id),
    at: iso(x.at)!,
    actor: x.actor,
    action: x.action,
    ...(x.project_id ? { projectId: x.project_id } : {}),
    resourceType: x.resource_type,
    ...(x.resource_id ? { resourceId: x.resource_id } : {}),
    details: x.details ?? {},
  }));
  return { rows, total: num(total.rows[0]?.n) };
}
