// Adds a user with a password (given, or generated and returned once) and writes the audit row: shared by
// `svc users add`, the dashboard and SCIM.
import type { Database } from '../../platform/store/database.ts';
import { writeAudit } from '../../platform/store/repos/audit-log.ts';
import { createUser, type NewUser, type User } from '../../platform/store/repos/users.ts';
import { generatePassword, hashPassword } from './password-hash.ts';

/** A plausible email: something, one @, something; `owner@localhost` included. */
export const EMAIL_PATTERN = '^[^@\\s]+@[^@\\s]+$';
export const isEmail = (value: string) => new RegExp(EMAIL_PATTERN).test(value);

export interface AddedUser {
  user: User;
  /** The generated password (shown once); absent when the caller gave one or asked for none. */
  password?: string;
}

/**
 * Creates the user (UserExistsError when the email is taken) in one transaction with its audit row. `password`: the
 * user's password; absent, one is generated; null, the user has none and cannot sign in until one is set.
 */
export async function addUser(
  db: Database,
  input: Omit<NewUser, 'passwordHash'> & { password?: string | null },
  by: { actor: string; organizationId?: string },
): Promise<AddedUser> {
  const { password: given, ...fields } = input;
  const password = given === undefined ? generatePassword() : given;
  const passwordHash = password === null ? undefined : await hashPassword(password);
  const user = await db.transaction(async (tx) => {
    const created = await createUser(tx, { ...fields, passwordHash });
    await writeAudit(tx, {
      organizationId: by.organizationId,
      actor: by.actor,
      action: 'user.create',
      resourceType: 'user',
      resourceId: created.id,
      details: { email: created.email, role: created.role, active: created.active },
    });
    return created;
  });
  return given === undefined && password !== null ? { user, password } : { user };
}
