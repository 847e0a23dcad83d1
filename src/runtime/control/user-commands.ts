// `svc users add|list`: dashboard users, run against an open store like the other store commands (here, or in the
// running service over the control socket). A new user's generated password is returned once.
import { addUser, isEmail, type AddedUser } from '../../observability/users/add-user.ts';
import { listUsers, type Role, ROLES, type User, UserExistsError } from '../../platform/store/repos/users.ts';
import { isRole } from '../../observability/users/roles.ts';
import { CLI_ACTOR, CommandError, type CommandContext } from './command-context.ts';

export type UserRequest =
  { command: 'users.add'; args: { email: string; role: Role; name?: string } } | { command: 'users.list' };

export type UserResult = AddedUser | User[];

/** A request from another process (the control socket), checked; undefined when it is not a users command. */
export function checkUserRequest(value: unknown): UserRequest | undefined {
  const r = value as { command?: unknown; args?: Record<string, unknown> } | null;
  if (r?.command === 'users.list') return { command: 'users.list' };
  const a = r?.args;
  if (
    r?.command === 'users.add' &&
    a &&
    typeof a.email === 'string' &&
    isRole(a.role) &&
    (a.name === undefined || typeof a.name === 'string')
  ) {
    return { command: 'users.add', args: { email: a.email, role: a.role, name: a.name } };
  }
  return undefined;
}

export async function runUserCommand(ctx: CommandContext, r: UserRequest): Promise<UserResult> {
  if (r.command === 'users.list') return (await listUsers(ctx.db)).users;
  if (!isEmail(r.args.email)) throw new CommandError(`--email '${r.args.email}' is not an email address`, 2);
  if (!isRole(r.args.role)) throw new CommandError(`--role must be one of ${ROLES.join(', ')}`, 2);
  try {
    return await addUser(ctx.db, r.args, CLI_ACTOR);
  } catch (err) {
    if (err instanceof UserExistsError) throw new CommandError(err.message);
    throw err;
  }
}
