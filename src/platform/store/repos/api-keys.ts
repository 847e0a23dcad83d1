// Project and organization API keys. The secret is random (256 bits) and stored as its SHA-256 only.
import { hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../database.ts';
import { iso } from './rows.ts';

export type ApiKeyKind = 'project' | 'organization';

export interface ApiKey {
  id: string;
  kind: ApiKeyKind;
  organizationId: string;
  projectId?: string;
  publicKey: string;
  displaySecretKey: string;
  note?: string;
  createdAt: string;
  expiresAt: string;
  /** When the key last authenticated a request, to the minute (see api-key-use.ts); absent when never. */
  lastUsedAt?: string;
  secretSha256: string;
}

export interface CreatedApiKey extends ApiKey {
  /** Plaintext; exists only in this value. */
  secretKey: string;
}

/** Keys created in the app expire six months after creation (docs/public-api.md, Authentication). */
export function sixMonthsAfter(ms: number): Date {
  const d = new Date(ms);
  d.setUTCMonth(d.getUTCMonth() + 6);
  return d;
}

/** A key as listed by the organization API (Langfuse's ApiKeySummary, plus expiresAt) and the dashboard: never its secret or hash. */
export function apiKeyBody(k: ApiKey) {
  return {
    id: k.id,
    createdAt: k.createdAt,
    expiresAt: k.expiresAt,
    lastUsedAt: k.lastUsedAt ?? null,
    note: k.note ?? null,
    publicKey: k.publicKey,
    displaySecretKey: k.displaySecretKey,
  };
}

export const secretSha256 = (secret: string) => hash('sha256', secret, 'hex');

export interface NewApiKey {
  kind: ApiKeyKind;
  organizationId: string;
  /** The project of a project key; absent for an organization key. */
  projectId?: string;
  note?: string;
  now: number;
}

export async function createApiKey(db: Queryable, input: NewApiKey): Promise<CreatedApiKey> {
  const id = randomUUID();
  const publicKey = `pk-svc-${randomUUID()}`;
  const secretKey = `sk-svc-${randomBytes(32).toString('base64url')}`;
  const display = `${secretKey.slice(0, 10)}...${secretKey.slice(-4)}`;
  const created = new Date(input.now);
  const expires = sixMonthsAfter(input.now);
  const sha = secretSha256(secretKey);
  await db.query(
    `INSERT INTO api_keys (id, kind, organization_id, project_id, public_key, secret_sha256, display_secret, note, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz, $10::timestamptz)`,
    [
      id,
      input.kind,
      input.organizationId,
      input.projectId ?? null,
      publicKey,
      sha,
      display,
      input.note ?? null,
      created.toISOString(),
      expires.toISOString(),
    ],
  );
  return {
    id,
    kind: input.kind,
    organizationId: input.organizationId,
    projectId: input.projectId,
    publicKey,
    secretKey,
    displaySecretKey: display,
    note: input.note,
    createdAt: created.toISOString(),
    expiresAt: expires.toISOString(),
    secretSha256: sha,
  };
}

function toApiKey(r: Record<string, any>): ApiKey {
  return {
    id: r.id,
    kind: r.kind,
    organizationId: r.organization_id,
    projectId: r.project_id ?? undefined,
    publicKey: r.public_key,
    displaySecretKey: r.display_secret,
    note: r.note ?? undefined,
    createdAt: iso(r.created_at)!,
    expiresAt: iso(r.expires_at)!,
    lastUsedAt: iso(r.last_used_at),
    secretSha256: r.secret_sha256,
  };
}

export async function findApiKeyByPublicKey(db: Queryable, publicKey: string): Promise<ApiKey | undefined> {
  // No key holds U+0000, and PostgreSQL refuses it in a text parameter: such a key is unknown, not a failed query.
  if (publicKey.includes('\u0000')) return undefined;
  const r = await db.query('SELECT * FROM api_keys WHERE public_key = $1', [publicKey]);
  return r.rows[0] ? toApiKey(r.rows[0]) : undefined;
}

export async function findApiKeyBySecret(db: Queryable, secret: string): Promise<ApiKey | undefined> {
  const sha = secretSha256(secret);
  const r = await db.query('SELECT * FROM api_keys WHERE secret_sha256 = $1', [sha]);
  const key = r.rows[0] ? toApiKey(r.rows[0]) : undefined;
  return key && secretMatches(key, secret) ? key : undefined;
}

/** Constant-time comparison of a presented secret with the stored hash. */
export function secretMatches(key: ApiKey, secret: string): boolean {
  return timingSafeEqual(Buffer.from(key.secretSha256, 'hex'), hash('sha256', secret, 'buffer'));
}

export async function listApiKeys(
  db: Queryable,
  filter: { projectId?: string; organizationId?: string },
): Promise<ApiKey[]> {
  const r = filter.projectId
    ? await db.query('SELECT * FROM api_keys WHERE project_id = $1 ORDER BY created_at', [filter.projectId])
    : await db.query('SELECT * FROM api_keys WHERE organization_id = $1 ORDER BY created_at', [filter.organizationId]);
  return r.rows.map(toApiKey);
}

export async function countApiKeys(db: Queryable, projectId: string): Promise<number> {
  const r = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE project_id = $1', [projectId]);
  return Number(r.rows[0].n);
}

/** Deletes a key of this project; false when the project has no key with this id. */
export async function deleteProjectApiKey(db: Queryable, projectId: string, id: string): Promise<boolean> {
  const r = await db.query("DELETE FROM api_keys WHERE id = $1 AND project_id = $2 AND kind = 'project'", [
    id,
    projectId,
  ]);
  return r.rowCount > 0;
}

/** Moves the key's last use forward to `at` (never back, so replicas writing out of order cannot rewind it). */
export async function recordApiKeyUse(db: Queryable, id: string, at: Date): Promise<void> {
  await db.query(
    'UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)',
    [id, at],
  );
}
