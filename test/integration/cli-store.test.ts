// `svc migrate`, `svc keys create`, `svc agents add` with no service running: the CLI opens the store itself, on
// both backends. (With a service running: cli-store-running.test.ts.) Runs the CLI from source, as a child process.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { loadConfigFile } from '../../src/platform/config/load-config.ts';
import { bootstrapStore } from '../../src/runtime/bootstrap.ts';
import type { Database } from '../../src/platform/store/database.ts';
import { loadMigrations } from '../../src/platform/store/migrate.ts';
import { openStore } from '../../src/platform/store/open-store.ts';
import { listAgents } from '../../src/platform/store/repos/agents.ts';
import { findApiKeyByPublicKey, secretMatches } from '../../src/platform/store/repos/api-keys.ts';
import { baseConfig } from '../helpers/service.ts';
import { freshPostgresDatabase, STORE_BACKENDS, type StoreBackend } from '../helpers/store.ts';
import { runCli as svc } from '../helpers/cli.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A config file in a temp dir for the backend (data_dir inside the dir). */
async function workspace(
  t: Teardown,
  backend: StoreBackend,
  overrides: Record<string, unknown> = {},
): Promise<{ dir: string; configPath: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const postgresUrl = backend === 'postgres' ? await freshPostgresDatabase(t) : '';
  const configPath = join(dir, 'gateway.yaml');
  writeFileSync(
    configPath,
    stringify(baseConfig({ store: { data_dir: join(dir, 'data'), postgres_url: postgresUrl }, ...overrides })),
  );
  return { dir, configPath };
}

/** Opens the store the config names in this process, runs `work`, and closes it (PGlite has one owner at a time). */
async function withStore<T>(configPath: string, work: (db: Database) => Promise<T>): Promise<T> {
  const loaded = await loadConfigFile(configPath, {});
  const db = await openStore(loaded.config, loaded.baseDir);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** What the first `svc start` does to the store: the organization and projects from the config. */
const bootstrap = (configPath: string) =>
  withStore(configPath, async (db) => bootstrapStore(db, (await loadConfigFile(configPath, {})).config, Date.now()));

const sixMonthsAfter = (isoTime: string) => {
  const d = new Date(isoTime);
  d.setUTCMonth(d.getUTCMonth() + 6);
  return d.toISOString();
};

for (const backend of STORE_BACKENDS) {
  // One store per backend, used by the subtests in order: migrated by the first, bootstrapped after it.
  t.test(backend, async (t) => {
    const { dir, configPath } = await workspace(t, backend);

    t.test('svc migrate applies the migrations once, then reports the store up to date', async (t) => {
      const first = await svc(['migrate', '--config', configPath]);
      t.equal(first.code, 0, first.stderr);
      const names = loadMigrations().map((m) => m.name);
      t.ok(names.length >= 2 && names[0] === '001_initial');
      t.equal(first.stdout, `Applied ${names.length} migrations:\n${names.map((n) => `  ${n}\n`).join('')}`);
      const again = await svc(['migrate', '--config', configPath, '--json']);
      t.equal(again.code, 0, again.stderr);
      t.same(JSON.parse(again.stdout), { applied: [] });
      const human = await svc(['migrate', '-c', configPath]);
      t.equal(human.code, 0, human.stderr);
      t.match(human.stdout, /^The store is up to date/);
      t.equal(human.stderr, '');
    });

    t.test('(what svc start does first: the organization and projects from gateway.yaml)', async () => {
      await bootstrap(configPath);
    });

    t.test('svc keys create', async (t) => {
      const human = await svc(['keys', 'create', '--project', 'default', '--config', configPath]);
      t.equal(human.code, 0, human.stderr);
      const publicKey = /public key: +(pk-svc-\S+)/.exec(human.stdout)?.[1];
      const secretKey = /secret key: +(sk-svc-\S+)/.exec(human.stdout)?.[1];
      t.ok(publicKey && secretKey, human.stdout);
      t.match(human.stdout, /^Created a project key for project 'default'\.\n/);
      t.match(human.stdout, /kind: +project\n/);
      t.match(human.stdout, /project: +default\n/);
      t.match(human.stdout, /organization: +default\n/);
      t.match(human.stdout, /expires at: +\d{4}-\d\d-\d\dT/);
      t.match(human.stdout, /shown once/);

      // These three need no order; on the embedded store, whichever opens it serves the others through its socket.
      const [asJson, orgRun, unknown] = await Promise.all([
        svc(['keys', 'create', '--project', 'default', '--note', 'for the ci', '--config', configPath, '--json']),
        svc(['keys', 'create', '--project', 'default', '--kind', 'organization', '--json', '-c', configPath]),
        svc(['keys', 'create', '--project', 'ghost', '--config', configPath]),
      ]);
      t.equal(asJson.code, 0, asJson.stderr);
      const project = JSON.parse(asJson.stdout);
      t.same(Object.keys(project).sort(), [
        'createdAt',
        'expiresAt',
        'id',
        'kind',
        'organizationId',
        'projectId',
        'publicKey',
        'secretKey',
      ]);
      t.match(project, {
        kind: 'project',
        projectId: 'default',
        organizationId: 'default',
        publicKey: /^pk-svc-/,
        secretKey: /^sk-svc-/,
      });
      t.equal(project.expiresAt, sixMonthsAfter(project.createdAt), 'expires six months after creation');

      t.equal(orgRun.code, 0, orgRun.stderr);
      const org = JSON.parse(orgRun.stdout);
      t.match(org, { kind: 'organization', organizationId: 'default' });
      t.notOk('projectId' in org, 'an organization key belongs to no project');

      t.equal(unknown.code, 1);
      t.match(unknown.stderr, /unknown project 'ghost'/);
      t.equal(unknown.stdout, '');

      await withStore(configPath, async (db) => {
        const stored = await findApiKeyByPublicKey(db, publicKey!);
        t.ok(stored, 'the key printed is stored');
        t.ok(secretMatches(stored!, secretKey!), 'and its secret is the one printed');
        t.equal(
          stored!.secretSha256,
          createHash('sha256').update(secretKey!).digest('hex'),
          'only the SHA-256 of the secret is kept',
        );
        t.equal(stored!.expiresAt, sixMonthsAfter(stored!.createdAt));
        const fromJson = await findApiKeyByPublicKey(db, project.publicKey);
        t.ok(secretMatches(fromJson!, project.secretKey));
        t.equal(fromJson!.note, 'for the ci');
        const orgKey = await findApiKeyByPublicKey(db, org.publicKey);
        t.match(orgKey, { kind: 'organization', organizationId: 'default', projectId: undefined });
        t.ok(secretMatches(orgKey!, org.secretKey));
        const audit = await db.query<{ action: string; resource_id: string }>(
          "SELECT action, resource_id FROM audit_log WHERE actor = 'cli' ORDER BY id",
        );
        t.same(
          audit.rows.map((r) => [r.action, r.resource_id]).sort(),
          [stored!.id, project.id, org.id].map((id) => ['api_key.create', id]).sort(),
          'each key is audited, actor cli',
        );
        const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys');
        t.equal(Number(count.rows[0].n), 4, 'the first-start key and the three made here');
      });
    });

    t.test('svc agents add', async (t) => {
      const human = await svc(['agents', 'add', '--project', 'default', '--name', 'planner', '--config', configPath]);
      t.equal(human.code, 0, human.stderr);
      t.match(human.stdout, /^Added agent 'planner' to project 'default'\.\n/);
      t.match(human.stdout, /id: +[0-9a-f-]{36}\n/);
      t.match(human.stdout, /version: +-\n/);
      t.match(human.stdout, /status: +active\n/);

      const args = [
        'agents',
        'add',
        '--project',
        'default',
        '--name',
        'planner',
        '--version',
        '2',
        '--framework',
        'langgraph',
        '--model',
        'gpt-4o-mini',
        '--config',
        configPath,
        '--json',
      ];
      const asJson = await svc(args);
      t.equal(asJson.code, 0, asJson.stderr);
      const agent = JSON.parse(asJson.stdout);
      t.match(agent, {
        id: /^[0-9a-f-]{36}$/,
        projectId: 'default',
        name: 'planner',
        version: '2',
        framework: 'langgraph',
        model: 'gpt-4o-mini',
        status: 'active',
      });
      t.ok(Number.isFinite(Date.parse(agent.createdAt)));

      const [duplicate, unknown] = await Promise.all([
        svc(args),
        svc(['agents', 'add', '--project', 'ghost', '--name', 'planner', '--config', configPath]),
      ]);
      t.equal(duplicate.code, 1, 'the same project, name and version twice is refused');
      t.match(duplicate.stderr, /agent named 'planner' version '2'.*already exists in project 'default'/);
      t.equal(duplicate.stdout, '');
      t.equal(unknown.code, 1);
      t.match(unknown.stderr, /unknown project 'ghost'/);

      await withStore(configPath, async (db) => {
        const agents = (await listAgents(db, 'default')).filter((a) => a.name === 'planner');
        t.same(
          agents.map((a) => a.version),
          ['', '2'],
        );
        t.same(agents[1], agent, '--json prints the stored agent');
        const audit = await db.query<{ action: string; resource_id: string }>(
          "SELECT action, resource_id FROM audit_log WHERE actor = 'cli' AND action = 'agent.create' ORDER BY id",
        );
        t.same(
          audit.rows.map((r) => r.resource_id),
          agents.map((a) => a.id),
          'each agent is audited, actor cli',
        );
      });
    });

    if (backend === 'pglite') {
      const sock = join(dir, 'data', 'control.sock');

      t.test(
        'two CLIs at once both succeed: the one that opened the store serves the other through its socket',
        async (t) => {
          const names = ['a', 'b', 'c'];
          const runs = await Promise.all(
            names.map((name) =>
              svc(['agents', 'add', '--project', 'default', '--name', name, '--json', '-c', configPath]),
            ),
          );
          for (const run of runs) t.equal(run.code, 0, run.stderr);
          t.notOk(existsSync(sock), 'the socket is gone once they have finished');
          await withStore(configPath, async (db) =>
            t.same(
              (await listAgents(db, 'default')).filter((a) => names.includes(a.name)).map((a) => a.name),
              names,
            ),
          );
        },
      );

      t.test('a stale control socket (its process died) is removed and the store opened directly', async (t) => {
        // A process that binds the socket and is killed: the file stays, nothing listens.
        const script = `require('node:net').createServer().listen(${JSON.stringify(sock)}, () => process.kill(process.pid, 'SIGKILL'));`;
        await new Promise<void>((done) =>
          spawn(process.execPath, ['-e', script], { stdio: 'ignore' }).on('exit', () => done()),
        );
        t.ok(existsSync(sock), 'the stale socket is there');
        const run = await svc(['migrate', '--json', '-c', configPath]);
        t.equal(run.code, 0, run.stderr);
        t.same(JSON.parse(run.stdout), { applied: [] });
        t.notOk(existsSync(sock));
      });
    }
  });
}

t.test('a store it cannot reach: exit 1 with a clear message', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const postgres = join(dir, 'pg.yaml');
  writeFileSync(
    postgres,
    stringify(
      baseConfig({ store: { postgres_url: 'postgres://postgres@127.0.0.1:1/none', data_dir: join(dir, 'data') } }),
    ),
  );
  writeFileSync(join(dir, 'a-file'), '');
  const embedded = join(dir, 'embedded.yaml');
  writeFileSync(embedded, stringify(baseConfig({ store: { data_dir: join(dir, 'a-file', 'data') } })));
  const [pg, pglite, keys] = await Promise.all([
    svc(['migrate', '-c', postgres]),
    svc(['migrate', '-c', embedded]),
    svc(['keys', 'create', '--project', 'default', '-c', postgres]),
  ]);
  t.equal(pg.code, 1);
  t.match(pg.stderr, /^svc: cannot open the store \(postgres\): connect ECONNREFUSED 127\.0\.0\.1:1\n$/);
  t.equal(pglite.code, 1);
  t.match(pglite.stderr, /^svc: cannot open the store \(embedded, .*a-file\/data\): ENOTDIR/);
  t.equal(keys.code, 1);
  t.match(keys.stderr, /cannot open the store \(postgres\)/);
  const invalid = join(dir, 'invalid.yaml');
  writeFileSync(invalid, 'version: 1\nserver: { port: -1 }\n');
  const bad = await svc(['migrate', '-c', invalid]);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /invalid\.yaml is invalid:\n( {2}.+\n)* {2}server\.port \(line 2\): must be >= 0\n/);
});

t.test('bad flags: exit 2 with the usage on stderr, before the store is touched', async (t) => {
  const cases = [
    ['keys', 'create'],
    ['keys', 'create', '--project', 'default', '--kind', 'team'],
    ['keys', 'create', '--project', 'default', '--colour', 'blue'],
    ['keys', 'delete', '--project', 'default'],
    ['agents', 'add', '--project', 'default'],
    ['agents', 'add', '--project', '', '--name', 'n'],
    ['migrate', 'now'],
  ];
  const runs = await Promise.all(cases.map((args) => svc([...args, '--config', '/nonexistent/gateway.yaml'])));
  runs.forEach((run, i) => {
    const what = cases[i].join(' ');
    t.equal(run.code, 2, what);
    t.match(run.stderr, /^svc: [^]+\nusage:\n/, what);
    t.equal(run.stdout, '', what);
  });
  t.match(runs[0].stderr, /--project is required/);
  t.match(runs[1].stderr, /--kind must be 'project' or 'organization'/);
  t.match(runs[2].stderr, /Unknown option '--colour'/);
  t.match(runs[3].stderr, /unexpected argument 'delete'/);
  t.match(runs[4].stderr, /--name is required/);
  t.match(runs[5].stderr, /--project is required/);

  const help = await svc(['--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /svc migrate \[--config FILE\] \[--json\]/);
  t.match(help.stdout, /svc keys create --project ID \[--kind project\|organization\]/);
  t.match(help.stdout, /svc agents add --project ID --name N \[--version V\] \[--framework F\] \[--model M\]/);
});
