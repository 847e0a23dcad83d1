// Checks an email and password against the users table. Unknown email, wrong password, no password and a deactivated
// user all fail alike, and take about as long (a dummy hash is checked when there is no real one).
import type { Queryable } from '../../platform/store/database.ts';
import { findUserByEmail, type User } from '../../platform/store/repos/users.ts';
import { generatePassword, hashPassword, verifyPassword } from './password-hash.ts';

let dummyHash: Promise<string> | undefined;

/** The user these credentials sign in, or undefined. */
export async function checkCredentials(db: Queryable, email: string, password: string): Promise<User | undefined> {
  const found = await findUserByEmail(db, email);
  dummyHash ??= hashPassword(generatePassword());
  const matches = await verifyPassword(password, found?.passwordHash ?? (await dummyHash));
  if (!found || !found.passwordHash || !matches || !found.active) return undefined;
  const { passwordHash: _hash, ...user } = found;
  return user;
}
