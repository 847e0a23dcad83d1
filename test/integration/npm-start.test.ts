// `npm start` as a process manager runs it: the package's real `start` script, in a package of its own (the built
// service linked in, the default gateway.yaml, ports chosen by the system). The banner names what each listener is
// bound to and a URL that reaches it, the admin listener stays on loopback by default, and SIGTERM to the npm process
// drains the server and frees both ports.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ROOT, cleanEnv } from '../helpers/cli.ts';
import { portIsFree } from '../helpers/ports.ts';
import { waitFor } from '../helpers/wait-for.ts';

const startScript = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string;

/** A non-loopback IPv4 address of this machine, if it has one. */
const externalAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

t.test(
  'npm start: the banner says what is bound, admin on loopback, SIGTERM to npm drains and frees the ports',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-npm-start-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'svc-start-check', private: true, scripts: { start: startScript } }),
    );
    symlinkSync(join(ROOT, 'dist'), join(dir, 'dist'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    cpSync(join(ROOT, 'gateway.yaml'), join(dir, 'gateway.yaml'));

    const npm = spawn('npm', ['start', '--', '--port', '0', '--admin-port', '0'], {
      cwd: dir,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    npm.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    npm.stderr!.resume();
    const exited = new Promise<number | null>((done) => npm.on('exit', (code) => done(code)));
    t.teardown(() => {
      if (npm.exitCode === null) npm.kill('SIGKILL');
    });

    const listening = await waitFor(
      'the listening lines',
      async () =>
        /svc gateway listening on (\S+):(\d+) \(([^)]+)\): (\S+)\/v1 \(role all\)\nsvc admin listening on (\S+):(\d+) \(([^)]+)\): (\S+)/.exec(
          stdout,
        ),
      90_000,
    );
    const [, gatewayAddress, gatewayPort, gatewayScope, gatewayUrl, adminAddress, adminPort, adminScope, adminUrl] =
      listening;
    t.same(
      [gatewayAddress, gatewayScope],
      ['0.0.0.0', 'all interfaces'],
      'the gateway listens on every interface, and says so',
    );
    t.same(
      [adminAddress, adminScope],
      ['127.0.0.1', 'loopback only'],
      'the admin listener stays on loopback by default',
    );
    t.equal(gatewayUrl, `http://localhost:${gatewayPort}`, 'the gateway URL printed for every interface is localhost');
    t.equal(adminUrl, `http://127.0.0.1:${adminPort}`);
    t.equal((await fetch(`${gatewayUrl}/health`)).status, 200, 'the printed gateway URL answers');
    t.equal((await fetch(`${adminUrl}/health`)).status, 200, 'the printed admin URL answers');

    if (externalAddress) {
      t.equal(
        (await fetch(`http://${externalAddress}:${gatewayPort}/health`)).status,
        200,
        `the gateway answers on ${externalAddress}`,
      );
      const refused = await fetch(`http://${externalAddress}:${adminPort}/health`).then(
        () => false,
        () => true,
      );
      t.ok(refused, `the admin listener does not answer on ${externalAddress}`);
    } else t.skip('reaching the listeners from a non-loopback address: this machine has none', () => {});

    npm.kill('SIGTERM');
    t.equal(await exited, 0, 'npm exits once the server has drained');
    t.match(stdout, /SIGTERM received, draining/, 'the server itself received the signal');
    t.ok(await portIsFree(Number(gatewayPort), '0.0.0.0'), 'the gateway port is free');
    t.ok(await portIsFree(Number(adminPort), '127.0.0.1'), 'the admin port is free');
  },
);
