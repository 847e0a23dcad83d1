// Gateway keys kept in the store (minted through the API, created by the CLI or the dashboard).
import type { Queryable } from '../database.ts';
import { iso, json, num } from './rows.ts';

export interface StoredGatewayKey {
  id: string;
  projectId: string;
  agentId?: string;
  alias: string;
  keySha256: string;
  modelGroups: string[];
  expiresAt?: string;
  rotatedAt?: string;
  rotationGraceHours: number;
  blocked: boolean;
  allowedNetworks?: string[];
  rpm?: number;
  tpm?: number;
  budgetUsd?: number;
  source: 'minted' | 'cli' | 'dashboard';
  deleted: boolean;
  createdAt: string;
  revision: number;
}

export type NewGatewayKey = Omit<
  StoredGatewayKey,
  'deleted' | 'createdAt' | 'revision' | 'rotatedAt' | 'rotationGraceHours' | 'blocked'
> &
  Partial<Pick<StoredGatewayKey, 'rotatedAt' | 'rotationGraceHours' | 'blocked'>>;

function toKey(r: Record<string, any>): StoredGatewayKey {
  return {
    id: r.id,
    projectId: r.project_id,
    agentId: r.agent_id ?? undefined,
    alias: r.alias,
    keySha256: r.key_sha256,
    modelGroups: r.model_groups ?? [],
    expiresAt: iso(r.expires_at),
    rotatedAt: iso(r.rotated_at),
    rotationGraceHours: Number(r.rotation_grace_hours),
    blocked: r.blocked === true,
    allowedNetworks: r.allowed_networks ?? undefined,
    rpm: r.rpm ?? undefined,
    tpm: r.tpm ?? undefined,
    budgetUsd: r.budget_usd ?? undefined,
    source: r.source,
    deleted: r.deleted === true,
    createdAt: iso(r.created_at)!,
    revision: num(r.revision),
  };
}

export class AliasTakenError extends Error {}

export async function insertGatewayKey(db: Queryable, k: NewGatewayKey): Promise<StoredGatewayKey> {
  const r = await db.query(
    `INSERT INTO gateway_keys (id, project_id, agent_id, alias, key_sha256, model_groups, expires_at, rotated_at,
       rotation_grace_hours, blocked, allowed_networks, rpm, tpm, budget_usd, source)
     VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7::timestamptz, $8::timestamptz, $9, $10, $11::text::jsonb, $12, $13, $14, $15)
     ON CONFLICT (project_id, alias) DO NOTHING RETURNING *`,
    [
      k.id,
      k.projectId,
      k.agentId ?? null,
      k.alias,
      k.keySha256,
      json(k.modelGroups),
      k.expiresAt ?? null,
      k.rotatedAt ?? null,
      k.rotationGraceHours ?? 0,
      k.blocked ?? false,
      json(k.allowedNetworks),
      k.rpm ?? null,
      k.tpm ?? null,
      k.budgetUsd ?? null,
      k.source,
    ],
  );
  if (!r.rows[0]) throw new AliasTakenError(`alias '${k.alias}' is already used in project '${k.projectId}'`);
  return toKey(r.rows[0]);
}

export async function aliasTaken(db: Queryable, projectId: string, alias: string): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM gateway_keys WHERE project_id = $1 AND alias = $2', [projectId, alias]);
  return r.rows.length > 0;
}

export async function setGatewayKeyBlocked(
  db: Queryable,
  projectId: string,
  id: string,
  blocked: boolean,
): Promise<StoredGatewayKey | undefined> {
  const r = await db.query(
    `UPDATE gateway_keys SET blocked = $3, revision = nextval('change_revision') WHERE project_id = $1 AND id = $2 RETURNING *`,
    [projectId, id, blocked],
  );
  return r.rows[0] ? toKey(r.rows[0]) : undefined;
}

export async function deleteGatewayKey(
  db: Queryable,
  projectId: string,
  id: string,
): Promise<StoredGatewayKey | undefined> {
  const r = await db.query(
    `UPDATE gateway_keys SET deleted = true, revision = nextval('change_revision') WHERE project_id = $1 AND id = $2 AND NOT deleted RETURNING *`,
    [projectId, id],
  );
  return r.rows[0] ? toKey(r.rows[0]) : undefined;
}

export async function listGatewayKeys(db: Queryable, projectId: string): Promise<StoredGatewayKey[]> {
  const r = await db.query(
    'SELECT * FROM gateway_keys WHERE project_id = $1 AND NOT deleted ORDER BY created_at DESC',
    [projectId],
  );
  return r.rows.map(toKey);
}

/** Keys changed after `revision` (all when 0), deleted ones included so caches drop them. */
export async function gatewayKeysChangedSince(db: Queryable, revision: number): Promise<StoredGatewayKey[]> {
  const r = await db.query('SELECT * FROM gateway_keys WHERE revision > $1 ORDER BY revision', [revision]);
  return r.rows.map(toKey);
}

export async function getGatewayKey(
  db: Queryable,
  projectId: string,
  id: string,
): Promise<StoredGatewayKey | undefined> {
  const r = await db.query('SELECT * FROM gateway_keys WHERE project_id = $1 AND id = $2 AND NOT deleted', [
    projectId,
    id,
  ]);
  return r.rows[0] ? toKey(r.rows[0]) : undefined;
}

export interface KeyRotation {
  /** SHA-256 (hex) of the new plaintext. */
  keySha256: string;
  /** Id and alias of the row that keeps the old plaintext through the grace window. */
  graceId: string;
  graceAlias: string;
  rotatedAt: string;
  graceHours: number;
}

/**
 * The key keeps its id, alias and settings (so its budget and limits carry on) and takes the new hash; the old hash
 * moves to a new row marked rotated, which auth honours until `rotatedAt + graceHours`. The key is written first so
 * its revision is older: a key cache applying changes in revision order drops the old hash before the grace row
 * claims it.
 */
export async function rotateGatewayKey(
  tx: Queryable,
  projectId: string,
  id: string,
  r: KeyRotation,
): Promise<{ key: StoredGatewayKey; grace: StoredGatewayKey } | undefined> {
  const old = await tx.query(
    'SELECT * FROM gateway_keys WHERE project_id = $1 AND id = $2 AND NOT deleted FOR UPDATE',
    [projectId, id],
  );
  if (!old.rows[0]) return undefined;
  const before = toKey(old.rows[0]);
  const updated = await tx.query(
    `UPDATE gateway_keys SET key_sha256 = $3, revision = nextval('change_revision') WHERE project_id = $1 AND id = $2 RETURNING *`,
    [projectId, id, r.keySha256],
  );
  const grace = await insertGatewayKey(tx, {
    ...before,
    id: r.graceId,
    alias: r.graceAlias,
    rotatedAt: r.rotatedAt,
    rotationGraceHours: r.graceHours,
  });
  return { key: toKey(updated.rows[0]), grace };
}
