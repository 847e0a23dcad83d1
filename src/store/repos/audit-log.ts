import type { Queryable } from '../database.ts';
import { json } from './rows.ts';

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

export async function writeAudit(db: Queryable, e: AuditEntry): Promise<void> {
  await db.query(
    `INSERT INTO audit_log (organization_id, project_id, actor, action, resource_type, resource_id, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7::text::jsonb)`,
    [e.organizationId ?? null, e.projectId ?? null, e.actor, e.action, e.resourceType, e.resourceId ?? null, json(e.details ?? {})],
  );
}

export async function listAudit(db: Queryable, projectId: string, limit = 100): Promise<(AuditEntry & { at: string })[]> {
  const r = await db.query<Record<string, any>>('SELECT * FROM audit_log WHERE project_id = $1 ORDER BY id DESC LIMIT $2', [projectId, limit]);
  return r.rows.map((x) => ({
    at: new Date(x.at).toISOString(),
    organizationId: x.organization_id ?? undefined,
    projectId: x.project_id ?? undefined,
    actor: x.actor,
    action: x.action,
    resourceType: x.resource_type,
    resourceId: x.resource_id ?? undefined,
    details: x.details,
  }));
}
