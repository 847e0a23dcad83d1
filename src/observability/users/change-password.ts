// A user's change of their own password (the dashboard's PUT /dashboard/api/session/password): the current password is
// checked with the same scrypt comparison as sign-in, the new one must be 12..200 characters and differ from it. The
// change ends every session of the user, opens one fresh session (the browser that asked stays signed in) and writes
// the audit row `user.password_change`, all in one transaction.
import type { Database } from '../../platform/store/database.ts';
import { writeAudit } from '../../platform/store/repos/audit-log.ts';
import {
  createSession,
  deleteUserSessions,
  type CreatedSession,
} from '../../platform/store/repos/dashboard-sessions.ts';
import { findUserByEmail, replacePasswordHash } from '../../platform/store/repos/users.ts';
import { hashPassword, verifyPassword } from './password-hash.ts';

export const NEW_PASSWORD_MIN = 12;
export const NEW_PASSWORD_MAX = 200;

/** Why `next` may not replace `current`, or undefined when it may. Lengths count characters (code points). */
export function newPasswordProblem(current: string, next: string): string | undefined {
  const length = [...next].length;
  if (length < NEW_PASSWORD_MIN)
    return `The new password needs at least ${NEW_PASSWORD_MIN} characters (it has ${length})`;
  if (length > NEW_PASSWORD_MAX)
    return `The new password may have at most ${NEW_PASSWORD_MAX} characters (it has ${length})`;
  if (next === current) return 'The new password must differ from the current one';
  return undefined;
}

export interface OwnPasswordChange {
  userId: string;
  email: string;
  currentPassword: string;
  newPassword: string;
}

export interface PasswordChangeContext {
  actor: string;
  organizationId?: string;
  now: number;
  /** The lifetime of the fresh session. */
  sessionLifetimeMs: number;
}

/**
 * Changes the password when `currentPassword` is the user's; the fresh session, or undefined when the current password
 * is wrong (or the user is inactive, or the password changed meanwhile). Check `newPasswordProblem` first.
 */
export async function changeOwnPassword(
  db: Database,
  change: OwnPasswordChange,
  by: PasswordChangeContext,
): Promise<CreatedSession | undefined> {
  const found = await findUserByEmail(db, change.email);
  const stored = found && found.id === change.userId && found.active ? found.passwordHash : undefined;
  if (!stored || !(await verifyPassword(change.currentPassword, stored))) return undefined;
  const passwordHash = await hashPassword(change.newPassword);
  return db.transaction(async (tx) => {
    // Only over the hash just verified: of two changes at once, the second finds it gone and fails.
    if (!(await replacePasswordHash(tx, change.userId, stored, passwordHash))) return undefined;
    await deleteUserSessions(tx, change.userId);
    const session = await createSession(tx, change.userId, by.now, by.sessionLifetimeMs);
    await writeAudit(tx, {
      organizationId: by.organizationId,
      actor: by.actor,
      action: 'user.password_change',
      resourceType: 'user',
      resourceId: change.userId,
      details: { email: found!.email },
    });
    return session;
  });
}
