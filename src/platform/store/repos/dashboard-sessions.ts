// Dashboard sessions (migration 008): the cookie holds a random token, the store its SHA-256; each session has a CSRF
// token of its own and a fixed lifetime. A session of a deactivated user is never found.
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../database.ts';
import { iso } from './rows.ts';
import type { User } from './users.ts';

export interface CreatedSession {
  /** The cookie value: exists only here and in the browser. */
  token: string;
  csrfToken: string;
  expiresAt: string;
}

/** The user of a session, as the dashboard shows and checks it. */
export type SessionUser = Pick<User, 'id' | 'email' | 'name' | 'role'>;

export interface Session {
  user: SessionUser;
  csrfToken: string;
  expiresAt: string;
}

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

// last_seen_at is refreshed at most this often, so reading pages does not write a row per request.
const SEEN_RESOLUTION_MS = 60_000;

export async function createSession(
  db: Queryable,
  userId: string,
  now: number,
  lifetimeMs: number,
): Promise<CreatedSession> {
  await db.query('DELETE FROM dashboard_sessions WHERE expires_at <= $1::timestamptz', [new Date(now).toISOString()]);
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  const at = new Date(now).toISOString();
  const expiresAt = new Date(now + lifetimeMs).toISOString();
  await db.query(
    `INSERT INTO dashboard_sessions (token_sha256, user_id, csrf_token, created_at, expires_at, last_seen_at)
     VALUES ($1, $2, $3, $4::timestamptz, $5::timestamptz, $4::timestamptz)`,
    [tokenHash(token), userId, csrfToken, at, expiresAt],
  );
  return { token, csrfToken, expiresAt };
}

/** The session of this token when it has not expired and its user is active. */
export async function findSession(db: Queryable, token: string, now: number): Promise<Session | undefined> {
  const at = new Date(now).toISOString();
  const r = await db.query<Record<string, any>>(
    `SELECT s.csrf_token, s.expires_at, s.last_seen_at, u.id, u.email, u.name, u.role FROM dashboard_sessions s JOIN users u ON u.id = s.user_id
     WHERE s.token_sha256 = $1 AND s.expires_at > $2::timestamptz AND u.active`,
    [tokenHash(token), at],
  );
  const row = r.rows[0];
  if (!row) return undefined;
  if (now - new Date(iso(row.last_seen_at)!).getTime() >= SEEN_RESOLUTION_MS) {
    await db.query('UPDATE dashboard_sessions SET last_seen_at = $2::timestamptz WHERE token_sha256 = $1', [
      tokenHash(token),
      at,
    ]);
  }
  return {
    user: { id: row.id, email: row.email, name: row.name, role: row.role },
    csrfToken: row.csrf_token,
    expiresAt: iso(row.expires_at)!,
  };
}

/** Ends the session (sign-out); false when there was none. */
export async function deleteSession(db: Queryable, token: string): Promise<boolean> {
  const r = await db.query('DELETE FROM dashboard_sessions WHERE token_sha256 = $1', [tokenHash(token)]);
  return r.rowCount > 0;
}

/** Ends every session of the user (deactivation). */
export async function deleteUserSessions(db: Queryable, userId: string): Promise<void> {
  await db.query('DELETE FROM dashboard_sessions WHERE user_id = $1', [userId]);
}
