// `svc start` on a port another process holds: one line on stderr naming the port, the setting and the flag that
// choose it (and how the flag passes through npm start), exit 1, no stack trace. The store is a fresh PostgreSQL
// database both starts share (an embedded PGlite store would cost its creation before the ports are bound).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ROOT, cleanEnv, runCli } from '../helpers/cli.ts';
import { freePort } from '../helpers/ports.ts';
import { freshPostgresDatabase } from '../helpers/store.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-port-in-use-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const configPath = join(dir, 'gateway.yaml');
copyFileSync(join(ROOT, 'gateway.yaml'), configPath);
const env = cleanEnv({ DATABASE_URL: await freshPostgresDatabase(t) });

/** Holds a port on every interface, as another program would. */
async function holdPort(t: { teardown(fn: () => unknown): void }): Promise<number> {
  const port = await freePort();
  const server: Server = createServer();
  await new Promise<void>((done) => server.listen(port, '0.0.0.0', done));
  t.teardown(() => new Promise<void>((done) => server.close(() => done())));
  return port;
}

t.test('the gateway port taken', async (t) => {
  const taken = await holdPort(t);
  const run = await runCli(['start', '--config', configPath, '--port', String(taken), '--admin-port', '0'], { env });
  t.equal(run.code, 1);
  t.equal(
    run.stderr.trim(),
    `svc: cannot start: the gateway port ${taken} (on 0.0.0.0) is in use by another process; ` +
      `choose another with server.port in the configuration or --port N (npm start -- --port N)`,
    'one line: the port, the setting, the flag',
  );
  t.notMatch(run.stdout, /listening on/);
});

t.test('the admin port taken', async (t) => {
  const taken = await holdPort(t);
  const run = await runCli(['start', '--config', configPath, '--port', '0', '--admin-port', String(taken)], { env });
  t.equal(run.code, 1);
  t.equal(
    run.stderr.trim(),
    `svc: cannot start: the admin port ${taken} (on 127.0.0.1) is in use by another process; ` +
      `choose another with server.admin_port in the configuration or --admin-port N (npm start -- --admin-port N)`,
  );
});
