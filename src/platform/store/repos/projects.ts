import type { Queryable } from '../database.ts';
import { iso, json, num } from './rows.ts';

export interface Project {
  id: string;
  organizationId: string;
  organizationName: string;
  name: string;
  maxKeyExpiryHours: number;
  ingestionOnly: boolean;
  metadata: Record<string, unknown>;
  /** Days traces are kept; 0: forever. */
  retentionDays: number;
  /** The dashboard's serving switch; gateway.yaml's `serving` applies as well (both must be on). */
  serving: boolean;
  createdAt: string;
}

export async function ensureOrganization(db: Queryable, org: { id: string; name: string }): Promise<boolean> {
  const r = await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
    org.id,
    org.name,
  ]);
  return r.rowCount > 0;
}

export interface ProjectSettings {
  id: string;
  organizationId: string;
  name: string;
  maxKeyExpiryHours: number;
  ingestionOnly: boolean;
}

/** Creates the project or applies the settings gateway.yaml declares for it; true when it was created. */
export async function upsertProject(db: Queryable, p: ProjectSettings): Promise<boolean> {
  const r = await db.query<{ inserted: boolean }>(
    `INSERT INTO projects (id, organization_id, name, max_key_expiry_hours, ingestion_only) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, max_key_expiry_hours = EXCLUDED.max_key_expiry_hours,
       ingestion_only = EXCLUDED.ingestion_only
     RETURNING (xmax = 0) AS inserted`,
    [p.id, p.organizationId, p.name, p.maxKeyExpiryHours, p.ingestionOnly],
  );
  return r.rows[0]?.inserted === true;
}

const SELECT = `SELECT p.*, o.name AS organization_name FROM projects p JOIN organizations o ON o.id = p.organization_id`;

function toProject(r: Record<string, any>): Project {
  return {
    id: r.id,
    organizationId: r.organization_id,
    organizationName: r.organization_name,
    name: r.name,
    maxKeyExpiryHours: Number(r.max_key_expiry_hours),
    ingestionOnly: r.ingestion_only === true,
    metadata: r.metadata ?? {},
    retentionDays: Number(r.retention_days ?? 0),
    serving: r.serving !== false,
    createdAt: iso(r.created_at)!,
  };
}

export async function getProject(db: Queryable, id: string): Promise<Project | undefined> {
  const r = await db.query(`${SELECT} WHERE p.id = $1`, [id]);
  return r.rows[0] ? toProject(r.rows[0]) : undefined;
}

export async function listProjects(db: Queryable, organizationId: string): Promise<Project[]> {
  const r = await db.query(`${SELECT} WHERE p.organization_id = $1 ORDER BY p.created_at, p.id`, [organizationId]);
  return r.rows.map(toProject);
}

/** Creates a project made through the public API (not declared in gateway.yaml); the store's defaults apply. */
export async function createProject(
  db: Queryable,
  p: { id: string; organizationId: string; name: string; metadata: Record<string, unknown>; retentionDays?: number },
): Promise<void> {
  await db.query(
    'INSERT INTO projects (id, organization_id, name, metadata, retention_days) VALUES ($1, $2, $3, $4::text::jsonb, $5)',
    [p.id, p.organizationId, p.name, json(p.metadata), p.retentionDays ?? 0],
  );
}

/** The organization's project of this name, if any (names are unique within an organization for the public API). */
export async function findProjectByName(
  db: Queryable,
  organizationId: string,
  name: string,
): Promise<Project | undefined> {
  const r = await db.query(`${SELECT} WHERE p.organization_id = $1 AND p.name = $2 ORDER BY p.id LIMIT 1`, [
    organizationId,
    name,
  ]);
  return r.rows[0] ? toProject(r.rows[0]) : undefined;
}

/** Renames the project and, when given, replaces its metadata and retention. */
export async function updateProject(
  db: Queryable,
  id: string,
  change: { name: string; metadata?: Record<string, unknown>; retentionDays?: number },
): Promise<void> {
  await db.query(
    'UPDATE projects SET name = $2, metadata = COALESCE($3::text::jsonb, metadata), retention_days = COALESCE($4, retention_days) WHERE id = $1',
    [id, change.name, json(change.metadata), change.retentionDays ?? null],
  );
}

/** Sets the dashboard's serving switch; a new revision tells every replica's key cache. */
export async function setProjectServing(db: Queryable, id: string, serving: boolean): Promise<void> {
  await db.query(`UPDATE projects SET serving = $2, revision = nextval('change_revision') WHERE id = $1`, [
    id,
    serving,
  ]);
}

/** Projects whose serving switch changed after `revision` (all when 0), for the key cache. */
export async function projectsChangedSince(
  db: Queryable,
  revision: number,
): Promise<{ id: string; serving: boolean; revision: number }[]> {
  const r = await db.query<{ id: string; serving: boolean; revision: unknown }>(
    'SELECT id, serving, revision FROM projects WHERE revision > $1 ORDER BY revision',
    [revision],
  );
  return r.rows.map((x) => ({ id: x.id, serving: x.serving !== false, revision: num(x.revision) }));
}

/** The projects that keep traces for a limited time, with that time in days. */
export async function projectsWithRetention(db: Queryable): Promise<{ id: string; retentionDays: number }[]> {
  const r = await db.query<{ id: string; retention_days: number }>(
    'SELECT id, retention_days FROM projects WHERE retention_days > 0 ORDER BY id',
  );
  return r.rows.map((row) => ({ id: row.id, retentionDays: Number(row.retention_days) }));
}

/** Deletes the project; its keys, agents, prompts and other rows with a foreign key go with it, and so do its traces,
 * observations, scores and spend rows (which have none: migration 015). */
export async function deleteProject(db: Queryable, id: string): Promise<boolean> {
  for (const table of ['scores', 'observations', 'traces', 'budget_spend']) {
    await db.query(`DELETE FROM ${table} WHERE project_id = $1`, [id]);
  }
  const r = await db.query('DELETE FROM projects WHERE id = $1', [id]);
  return r.rowCount > 0;
}
