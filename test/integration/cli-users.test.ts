// `svc users add|list` on both backends, with no service running (the CLI opens the store) and while `svc start` runs
// (PGlite: through the control socket), and `svc start` printing the first owner's sign-in once, never again.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { runCli as svc } from '../helpers/cli.ts';
import { signIn } from '../helpers/dashboard.ts';
import { startServiceProcess } from '../helpers/service-process.ts';
import { baseConfig } from '../helpers/service.ts';
import { freshPostgresDatabase, STORE_BACKENDS, type StoreBackend } from '../helpers/store.ts';

const SIGN_IN_LINE =
  /^Dashboard sign-in \(shown once; keep it\): (http:\/\/127\.0\.0\.1:\d+\/dashboard\/) as owner@localhost with password ([A-Za-z0-9_-]{24})$/m;

/** A config file for the backend in a temp dir (data_dir inside it), removed when the test ends. */
async function workspace(t: { teardown(fn: () => unknown): void }, backend: StoreBackend): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-users-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'gateway.yaml');
  const postgresUrl = backend === 'postgres' ? await freshPostgresDatabase(t) : '';
  writeFileSync(
    configPath,
    stringify(baseConfig({ store: { data_dir: join(dir, 'data'), postgres_url: postgresUrl } })),
  );
  return configPath;
}

for (const backend of STORE_BACKENDS) {
  t.test(backend, async (t) => {
    const configPath = await workspace(t, backend);

    let added: { user: { id: string; email: string; role: string; name: string }; password: string };
    t.test('svc users add prints a generated password once; flags may come before the subcommand', async (t) => {
      const human = await svc([
        'users',
        'add',
        '--email',
        'ada@example.com',
        '--role',
        'admin',
        '--name',
        'Ada',
        '--config',
        configPath,
      ]);
      t.equal(human.code, 0, human.stderr);
      t.match(
        human.stdout,
        /^Added admin ada@example\.com \(Ada\)\.\n {2}id: {7}\S+\n {2}password: [A-Za-z0-9_-]{24}\nThe password is shown once/,
      );
      const json = await svc([
        'users',
        '--email',
        'bob@example.com',
        '--role',
        'viewer',
        '-c',
        configPath,
        'add',
        '--json',
      ]);
      t.equal(json.code, 0, json.stderr);
      added = JSON.parse(json.stdout);
      t.match(added, {
        user: { id: String, email: 'bob@example.com', role: 'viewer', name: '', active: true },
        password: /^[A-Za-z0-9_-]{24}$/,
      });
    });

    t.test('svc users add refuses a taken email, a bad role, a bad email and missing flags', async (t) => {
      const taken = await svc(['users', 'add', '--email', 'ADA@example.com', '--role', 'viewer', '-c', configPath]);
      t.same([taken.code, taken.stdout], [1, '']);
      t.match(taken.stderr, /a user with the email 'ADA@example\.com' already exists/);
      const role = await svc(['users', 'add', '--email', 'c@example.com', '--role', 'root', '-c', configPath]);
      t.equal(role.code, 2);
      t.match(role.stderr, /--role must be one of viewer, member, admin, owner, not 'root'/);
      const email = await svc(['users', 'add', '--email', 'not-an-email', '--role', 'viewer', '-c', configPath]);
      t.equal(email.code, 2);
      t.match(email.stderr, /is not an email address/);
      const missing = await svc(['users', 'add', '--role', 'viewer', '-c', configPath]);
      t.equal(missing.code, 2);
      t.match(missing.stderr, /--email is required/);
      t.equal((await svc(['users', 'remove', '-c', configPath])).code, 2);
    });

    t.test('svc users list', async (t) => {
      const list = await svc(['users', 'list', '--json', '-c', configPath]);
      t.equal(list.code, 0, list.stderr);
      t.same(
        JSON.parse(list.stdout).map((u: any) => [u.email, u.role]),
        [
          ['ada@example.com', 'admin'],
          ['bob@example.com', 'viewer'],
        ],
      );
      const human = await svc(['users', 'list', '-c', configPath]);
      t.match(
        human.stdout,
        /^\S+ {2}ada@example\.com {2}admin {2}active {2}Ada\n\S+ {2}bob@example\.com {2}viewer {2}active\n$/,
      );
    });
  });

  t.test(
    `${backend}: svc start prints the first owner's sign-in once; svc users add works while it runs`,
    async (t) => {
      const configPath = await workspace(t, backend);

      const first = await startServiceProcess(t, configPath);
      const line = SIGN_IN_LINE.exec(first.process.output().stdout);
      t.ok(line, 'the sign-in line is on stdout');
      t.equal(line![1], `${first.adminUrl}/dashboard/`);
      const ownerPassword = line![2];
      t.match(
        first.process.output().stderr,
        /"msg":"dashboard owner created; its sign-in is printed on stdout once"/,
        'the log says so',
      );
      t.notOk(first.process.output().stderr.includes(ownerPassword), 'the password is never in the log');
      const owner = await signIn(first, 'owner@localhost', ownerPassword);
      t.equal(owner.user.role, 'owner');

      const add = await svc([
        'users',
        'add',
        '--email',
        'live@example.com',
        '--role',
        'member',
        '--json',
        '-c',
        configPath,
      ]);
      t.equal(add.code, 0, add.stderr);
      const { password } = JSON.parse(add.stdout);
      t.equal(
        (await signIn(first, 'LIVE@example.com', password)).user.role,
        'member',
        'the new user signs in to the running service',
      );
      t.equal(await first.process.stop(), 0);

      const second = await startServiceProcess(t, configPath);
      t.notMatch(second.process.output().stdout, /Dashboard sign-in/, 'a later start prints no sign-in');
      t.notMatch(second.process.output().stderr, /dashboard owner created/);
      t.equal(
        (await signIn(second, 'owner@localhost', ownerPassword)).user.role,
        'owner',
        'the first password still signs in',
      );
    },
  );
}
