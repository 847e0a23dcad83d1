// The first start on a store with no user creates the owner `owner@localhost` with a generated password, printed once.
// Replicas starting together race on the unique email: only the one whose insert lands reports a password.
import type { Database } from '../../platform/store/database.ts';
import { countUsers, UserExistsError } from '../../platform/store/repos/users.ts';
import { addUser } from './add-user.ts';

export const FIRST_OWNER_EMAIL = 'owner@localhost';

export interface FirstOwner {
  email: string;
  password: string;
}

/** The owner created now, or undefined when the store already had a user. */
export async function ensureFirstOwner(db: Database, organizationId: string): Promise<FirstOwner | undefined> {
  if ((await countUsers(db)) > 0) return undefined;
  try {
    const { user, password } = await addUser(
      db,
      { email: FIRST_OWNER_EMAIL, name: 'Owner', role: 'owner' },
      { actor: 'config', organizationId },
    );
    return { email: user.email, password: password! };
  } catch (err) {
    if (err instanceof UserExistsError) return undefined;
    throw err;
  }
}
