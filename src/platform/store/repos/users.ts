// The users repository: the organization's members, their role and password hash (migration 008).
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../database.ts';
import { iso, num } from './rows.ts';

/** The organization roles, lowest first (src/observability/users/roles.ts says what each allows). */
export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export interface User {
  id: string;
  email: string;
  name: string;
  role: Role;
  active: boolean;
  /** The identity provider's id of a SCIM-provisioned user. */
  externalId?: string;
  createdAt: string;
  updatedAt: string;
}

export interface NewUser {
  email: string;
  name?: string;
  role: Role;
  passwordHash?: string;
  active?: boolean;
  externalId?: string;
}

export class UserExistsError extends Error {}

function toUser(r: Record<string, any>): User {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    role: r.role,
    active: r.active === true,
    ...(r.external_id ? { externalId: r.external_id } : {}),
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

/** Creates the user; UserExistsError when the email (in any case) is taken. */
export async function createUser(db: Queryable, u: NewUser): Promise<User> {
  const r = await db.query(
    `INSERT INTO users (id, email, name, role, password_hash, active, external_id) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT DO NOTHING RETURNING *`,
    [
      randomUUID(),
      u.email.trim(),
      u.name ?? '',
      u.role,
      u.passwordHash ?? null,
      u.active ?? true,
      u.externalId ?? null,
    ],
  );
  if (!r.rows[0]) throw new UserExistsError(`a user with the email '${u.email.trim()}' already exists`);
  return toUser(r.rows[0]);
}

export async function getUser(db: Queryable, id: string): Promise<User | undefined> {
  const r = await db.query('SELECT * FROM users WHERE id = $1', [id]);
  return r.rows[0] ? toUser(r.rows[0]) : undefined;
}

/** The user with this email (any case) and their password hash, for sign-in. */
export async function findUserByEmail(
  db: Queryable,
  email: string,
): Promise<(User & { passwordHash?: string }) | undefined> {
  // No email holds U+0000, and PostgreSQL refuses it in a text parameter: such a user is unknown, not a failed query.
  if (email.includes('\u0000')) return undefined;
  const r = await db.query<Record<string, any>>('SELECT * FROM users WHERE lower(email) = lower($1)', [email.trim()]);
  const row = r.rows[0];
  return row ? { ...toUser(row), ...(row.password_hash ? { passwordHash: row.password_hash } : {}) } : undefined;
}

export async function countUsers(db: Queryable): Promise<number> {
  const r = await db.query<{ n: unknown }>('SELECT count(*) AS n FROM users');
  return num(r.rows[0]?.n);
}

/** Users oldest first (a page of them with `offset` and `limit`), optionally only the one with this email (any case). */
export async function listUsers(
  db: Queryable,
  q: { email?: string; offset?: number; limit?: number } = {},
): Promise<{ users: User[]; total: number }> {
  const where = q.email === undefined ? 'TRUE' : 'lower(email) = lower($1)';
  const params = q.email === undefined ? [] : [q.email];
  const total = await db.query<{ n: unknown }>(`SELECT count(*) AS n FROM users WHERE ${where}`, params);
  const r = await db.query(
    `SELECT * FROM users WHERE ${where} ORDER BY created_at, id OFFSET $${params.length + 1} LIMIT $${params.length + 2}`,
    [
      ...params,
      q.offset ?? 0,
      q.limit ?? null, // LIMIT NULL: all of them
    ],
  );
  return { users: r.rows.map(toUser), total: num(total.rows[0]?.n) };
}

export interface UserChange {
  email?: string;
  name?: string;
  role?: Role;
  active?: boolean;
  passwordHash?: string;
  externalId?: string;
}

const COLUMNS: Record<keyof UserChange, string> = {
  email: 'email',
  name: 'name',
  role: 'role',
  active: 'active',
  passwordHash: 'password_hash',
  externalId: 'external_id',
};

/** Applies the fields given; undefined when there is no such user, UserExistsError when the new email is taken. */
export async function updateUser(db: Queryable, id: string, change: UserChange): Promise<User | undefined> {
  const fields = (Object.keys(COLUMNS) as (keyof UserChange)[]).filter((k) => change[k] !== undefined);
  const sets = fields.map((k, i) => `${COLUMNS[k]} = $${i + 2}`);
  const values = fields.map((k) => (k === 'email' ? change.email!.trim() : change[k]));
  const exists = () => new UserExistsError(`a user with the email '${change.email!.trim()}' already exists`);
  if (change.email !== undefined) {
    const taken = await db.query('SELECT 1 FROM users WHERE lower(email) = lower($1) AND id <> $2', [
      change.email.trim(),
      id,
    ]);
    if (taken.rows.length > 0) throw exists();
  }
  const r = await db
    .query(`UPDATE users SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE id = $1 RETURNING *`, [id, ...values])
    .catch((err: unknown) => {
      // A unique violation (users_email, the only unique index besides the id): another user took the email since the check.
      throw (err as { code?: unknown } | null)?.code === '23505' && change.email !== undefined ? exists() : err;
    });
  return r.rows[0] ? toUser(r.rows[0]) : undefined;
}

/** Locks the user's row until the transaction ends. */
export async function lockUser(tx: Queryable, id: string): Promise<void> {
  await tx.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [id]);
}

/** Locks the active owners other than this user until the transaction ends; how many there are. */
export async function lockOtherActiveOwners(tx: Queryable, id: string): Promise<number> {
  const r = await tx.query("SELECT id FROM users WHERE role = 'owner' AND active AND id <> $1 FOR UPDATE", [id]);
  return r.rows.length;
}

/** Sets the password hash only over `expected` and while the user is active; false when that no longer holds. */
export async function replacePasswordHash(
  tx: Queryable,
  id: string,
  expected: string,
  passwordHash: string,
): Promise<boolean> {
  const r = await tx.query(
    'UPDATE users SET password_hash = $3, updated_at = now() WHERE id = $1 AND password_hash = $2 AND active RETURNING id',
    [id, expected, passwordHash],
  );
  return r.rows.length > 0;
}

/** Deletes the user and their sessions; false when there was none. */
export async function deleteUser(db: Queryable, id: string): Promise<boolean> {
  const r = await db.query('DELETE FROM users WHERE id = $1', [id]);
  return r.rowCount > 0;
}
