// `svc users add --email E --role R [--name N]` and `svc users list`: flags in, a store command run (see store-cli.ts),
// the result printed for people or (--json) for scripts. The generated password is printed once, at add.
import { parseArgs } from 'node:util';
import type { AddedUser } from '../../observability/users/add-user.ts';
import { ROLES, type User } from '../../platform/store/repos/users.ts';
import { isRole } from '../../observability/users/roles.ts';
import type { UserRequest } from './user-commands.ts';
import { optional, parse, required, runRequest, UsageError } from './store-cli.ts';

const SUBCOMMANDS = ['add', 'list'] as const;
const ADD_FLAGS = { email: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' } } as const;

/** The first positional, with flag values skipped (`svc users --email e add`); `parse` checks the rest strictly. */
function subcommandOf(args: string[]): string | undefined {
  const options = { ...ADD_FLAGS, config: { type: 'string', short: 'c' }, json: { type: 'boolean' } } as const;
  return parseArgs({ args, options, allowPositionals: true, strict: false }).positionals[0];
}

function request(
  sub: (typeof SUBCOMMANDS)[number],
  args: string[],
): { request: UserRequest; values: Record<string, unknown> } {
  if (sub === 'list') return { values: parse(args, {}, sub), request: { command: 'users.list' } };
  const values = parse(args, ADD_FLAGS, sub);
  const role = required(values, 'role');
  if (!isRole(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}, not '${role}'`);
  return {
    values,
    request: { command: 'users.add', args: { email: required(values, 'email'), role, name: optional(values, 'name') } },
  };
}

export async function usersCommand(args: string[]): Promise<number> {
  const sub = subcommandOf(args);
  if (!SUBCOMMANDS.includes(sub as 'add'))
    throw new UsageError(
      sub ? `unknown subcommand 'users ${sub}'` : `missing subcommand: one of ${SUBCOMMANDS.join(', ')}`,
    );
  const { request: r, values } = request(sub as 'add', args);
  const result = await runRequest(values.config as string, r);
  if (typeof result === 'number') return result;
  if (values.json === true) console.log(JSON.stringify(result));
  else if (r.command === 'users.add') printAdded(result as AddedUser);
  else printList(result as User[]);
  return 0;
}

function printAdded({ user, password }: AddedUser): void {
  console.log(
    [
      `Added ${user.role} ${user.email}${user.name ? ` (${user.name})` : ''}.`,
      `  id:       ${user.id}`,
      `  password: ${password}`,
      'The password is shown once and cannot be shown again: pass it on now. It signs in to the dashboard.',
    ].join('\n'),
  );
}

function printList(users: User[]): void {
  if (users.length === 0) console.log('No users.');
  for (const u of users)
    console.log(`${u.id}  ${u.email}  ${u.role}  ${u.active ? 'active' : 'deactivated'}${u.name ? `  ${u.name}` : ''}`);
}
