// The store commands while the service runs, on both backends: with Postgres the CLI writes to the database and the
// service reads it; with embedded PGlite (one process only) the CLI hands the command to the service over
// <data_dir>/control.sock (or, where its path would be too long, warns). And `svc start` prints the first start's
// project key pair once, never again.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { loadConfigFile } from '../../src/platform/config/load-config.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { startService } from '../../src/runtime/service.ts';
import { loadMigrations } from '../../src/platform/store/migrate.ts';
import { openStore } from '../../src/platform/store/open-store.ts';
import { listAgents } from '../../src/platform/store/repos/agents.ts';
import { findApiKeyByPublicKey, secretMatches } from '../../src/platform/store/repos/api-keys.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';
import { freshPostgresDatabase, STORE_BACKENDS } from '../helpers/store.ts';
import { runCli as svc } from '../helpers/cli.ts';
import { svcStart } from '../helpers/service-process.ts';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

for (const backend of STORE_BACKENDS) {
  t.test(`${backend}: svc keys create and svc agents add while the service runs`, async (t) => {
    // The service's clock is an hour behind: a key stamped with it was made by the service (through the socket).
    const serviceNow = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
    const s = await startTestService(t, baseConfig(), {
      backend,
      clock: { now: () => serviceNow, sleep: systemClock.sleep },
    });
    const sock = join(s.dir, 'data', 'control.sock');
    if (backend === 'pglite') {
      t.ok(existsSync(sock), 'the service listens on <data_dir>/control.sock');
      t.equal(statSync(sock).mode & 0o777, 0o600, 'for its owner only');
    } else t.notOk(existsSync(sock), 'with Postgres the CLI goes to the database itself: no socket');

    const created = await svc(['keys', 'create', '--project', 'default', '--json', '--config', s.configPath]);
    t.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout);
    if (backend === 'pglite')
      t.equal(key.createdAt, new Date(serviceNow).toISOString(), 'the running service made the key');
    else t.ok(Date.parse(key.createdAt) > serviceNow, 'the CLI made the key itself');
    const stored = await findApiKeyByPublicKey(s.service.db, key.publicKey);
    t.ok(stored && secretMatches(stored, key.secretKey), 'the running service finds the key and its secret');
    const res = await fetch(`${s.adminUrl}/api/public/projects`, {
      headers: { authorization: basic(key.publicKey, key.secretKey) },
    });
    t.equal(res.status, 200, 'the key pair authenticates on the running service');
    t.match(await res.json(), { data: [{ id: 'default' }] });

    const human = await svc(['keys', 'create', '--project', 'default', '--kind', 'organization', '-c', s.configPath]);
    t.equal(human.code, 0, human.stderr);
    t.match(human.stdout, /^Created an organization key for organization 'default'\.\n/);

    const added = await svc([
      'agents',
      'add',
      '--project',
      'default',
      '--name',
      'live-agent',
      '--version',
      '1',
      '--json',
      '-c',
      s.configPath,
    ]);
    t.equal(added.code, 0, added.stderr);
    const agent = JSON.parse(added.stdout);
    const agents = await listAgents(s.service.db, 'default');
    t.same(
      agents.find((a) => a.id === agent.id),
      agent,
      'the running service sees the new agent',
    );

    const [duplicate, unknown, migrated] = await Promise.all([
      svc(['agents', 'add', '--project', 'default', '--name', 'live-agent', '--version', '1', '-c', s.configPath]),
      svc(['keys', 'create', '--project', 'ghost', '-c', s.configPath]),
      svc(['migrate', '-c', s.configPath]),
    ]);
    t.equal(duplicate.code, 1);
    t.match(duplicate.stderr, /already exists in project 'default'/);
    t.equal(unknown.code, 1);
    t.match(unknown.stderr, /unknown project 'ghost'/);
    t.equal(migrated.code, 0, migrated.stderr);
    t.match(migrated.stdout, /^The store is up to date/);

    if (backend === 'pglite') {
      const ask = (line: string) =>
        new Promise<unknown>((done, fail) => {
          let reply = '';
          const c = createConnection(sock, () => c.write(line));
          c.setEncoding('utf8').on('data', (d: string) => (reply += d));
          c.on('end', () => done(JSON.parse(reply)));
          c.on('error', fail);
        });
      t.same(await ask('not json\n'), { ok: false, error: 'the control request is not one line of JSON', exitCode: 2 });
      t.match(await ask('{"command":"drop.tables"}\n'), {
        ok: false,
        error: /unknown or malformed control request/,
        exitCode: 2,
      });
      t.match(await ask('{"command":"keys.create","args":{"project":"default","kind":"root"}}\n'), {
        ok: false,
        exitCode: 2,
      });

      await t.rejects(
        startService({ configPath: s.configPath, log: silentLogger, watch: false, processMetrics: false }),
        { message: new RegExp(`^another svc process is using ${join(s.dir, 'data')}`) },
        'a second service on the same embedded store does not start',
      );
      t.ok(existsSync(sock), 'and the first keeps its socket');
      t.equal(
        (await svc(['agents', 'add', '--project', 'default', '--name', 'after', '-c', s.configPath])).code,
        0,
        'and still serves it',
      );
    }

    await s.service.stop();
    t.notOk(existsSync(sock), 'the socket is removed when the service stops');
  });

  t.test(`${backend}: the first svc start prints a project key pair once`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-start-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const postgresUrl = backend === 'postgres' ? await freshPostgresDatabase(t) : '';
    const configPath = join(dir, 'gateway.yaml');
    writeFileSync(
      configPath,
      stringify(baseConfig({ store: { data_dir: join(dir, 'data'), postgres_url: postgresUrl } })),
    );

    const first = svcStart(configPath);
    const out = await first.waitFor(/listening on/);
    const printed =
      /^Created project key pair for 'default' \(shown once; keep it\):\n {2}public key: (pk-svc-\S+)\n {2}secret key: (sk-svc-\S+)\n/m.exec(
        out,
      );
    t.ok(printed, out);
    t.equal(out.match(/Created project key pair/g)?.length, 1, 'one project, one key pair');

    if (backend === 'pglite') {
      const second = svcStart(configPath);
      t.equal(await second.exited, 1, 'a second svc start on the same embedded store fails');
      t.match(second.output().stderr, `svc: cannot start: another svc process is using ${join(dir, 'data')}`);
    }
    t.equal(await first.stop(), 0);

    const again = svcStart(configPath);
    const out2 = await again.waitFor(/listening on/);
    t.notMatch(out2, /key pair|pk-svc-|sk-svc-/, 'a later start prints no key pair');
    t.equal(await again.stop(), 0);

    const loaded = await loadConfigFile(configPath, {});
    const db = await openStore(loaded.config, loaded.baseDir);
    t.teardown(() => db.close());
    const key = await findApiKeyByPublicKey(db, printed![1]);
    t.match(key, { kind: 'project', projectId: 'default' });
    t.ok(key && secretMatches(key, printed![2]), 'the printed secret is the stored one');
  });
}

t.test(
  'embedded store under a data_dir too long for a socket path: a warning, and the store opened directly',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const dataDir = join(dir, 'a-data-directory-with-a-name-long-enough'.repeat(3));
    const configPath = join(dir, 'gateway.yaml');
    writeFileSync(configPath, stringify(baseConfig({ store: { data_dir: dataDir } })));
    const run = await svc(['migrate', '--json', '-c', configPath]);
    t.equal(run.code, 0, run.stderr);
    t.same(JSON.parse(run.stdout), { applied: loadMigrations().map((m) => m.name) });
    t.match(
      run.stderr,
      /^svc: warning: cannot tell whether svc is running on .+ \(control socket .+control\.sock: the path is \d+ bytes, longer than the 10\d the OS allows\); stop it before running this command\n$/,
    );

    const warnings: string[] = [];
    const log = { ...silentLogger, warn: (msg: string) => void warnings.push(msg), child: () => log };
    const service = await startService({ configPath, log, watch: false, processMetrics: false });
    await service.stop();
    t.ok(
      warnings.some((w) => w.startsWith('no control socket')),
      'the service starts without a socket, with a warning',
    );
  },
);
