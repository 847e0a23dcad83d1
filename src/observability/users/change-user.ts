// Changes and removals of users that keep the organization governable: the last active owner can be neither demoted,
// deactivated nor removed. Deactivation and a new password end the user's sessions at once. Each change writes an
// audit row.
import type { Database, Queryable } from '../../platform/store/database.ts';
import { writeAudit } from '../../platform/store/repos/audit-log.ts';
import { deleteUserSessions } from '../../platform/store/repos/dashboard-sessions.ts';
import {
  deleteUser,
  getUser,
  lockOtherActiveOwners,
  lockUser,
  updateUser,
  type User,
  type UserChange,
} from '../../platform/store/repos/users.ts';
import { hashPassword } from './password-hash.ts';

export class LastOwnerError extends Error {}

export interface ChangedBy {
  actor: string;
  organizationId?: string;
  /** Throws when this actor may not change or remove `before` (the organization API); runs with the row locked. */
  allow?: (before: User) => void;
}

/** The user, its row locked until the transaction ends, after `by.allow` accepted it; undefined when there is none. */
async function lockedUser(tx: Queryable, id: string, by: ChangedBy): Promise<User | undefined> {
  await lockUser(tx, id);
  const user = await getUser(tx, id);
  if (user) by.allow?.(user);
  return user;
}

async function refuseLastOwner(tx: Queryable, before: User): Promise<void> {
  if (before.role !== 'owner' || !before.active) return;
  // Locks the other owners: two owners demoting each other at once cannot both succeed.
  if ((await lockOtherActiveOwners(tx, before.id)) === 0)
    throw new LastOwnerError(`${before.email} is the last active owner; make another user owner first`);
}

/** Applies the change (a new `password` is hashed); undefined when there is no such user. */
export async function changeUser(
  db: Database,
  id: string,
  change: Omit<UserChange, 'passwordHash'> & { password?: string },
  by: ChangedBy,
): Promise<User | undefined> {
  const { password, ...fields } = change;
  const passwordHash = password === undefined ? undefined : await hashPassword(password);
  return db.transaction(async (tx) => {
    const before = await lockedUser(tx, id, by);
    if (!before) return undefined;
    if ((fields.role !== undefined && fields.role !== 'owner') || fields.active === false)
      await refuseLastOwner(tx, before);
    const after = (await updateUser(tx, id, { ...fields, passwordHash }))!;
    if (!after.active || password !== undefined) await deleteUserSessions(tx, id);
    const details: Record<string, unknown> = {};
    for (const k of ['email', 'name', 'role', 'active', 'externalId'] as const) {
      if (fields[k] !== undefined && fields[k] !== before[k]) details[k] = { from: before[k] ?? null, to: after[k] };
    }
    if (password !== undefined) details.password = 'changed';
    await writeAudit(tx, {
      organizationId: by.organizationId,
      actor: by.actor,
      action: 'user.update',
      resourceType: 'user',
      resourceId: id,
      details: { email: after.email, ...details },
    });
    return after;
  });
}

/** Removes the user and their sessions; undefined when there was none. */
export async function removeUser(db: Database, id: string, by: ChangedBy): Promise<User | undefined> {
  return db.transaction(async (tx) => {
    const before = await lockedUser(tx, id, by);
    if (!before) return undefined;
    await refuseLastOwner(tx, before);
    await deleteUser(tx, id);
    await writeAudit(tx, {
      organizationId: by.organizationId,
      actor: by.actor,
      action: 'user.delete',
      resourceType: 'user',
      resourceId: id,
      details: { email: before.email, role: before.role },
    });
    return before;
  });
}
