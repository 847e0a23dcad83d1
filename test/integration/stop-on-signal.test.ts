// Every documented way to start svc stops on SIGTERM and SIGINT sent to the process the user started: `npm start`,
// `npx svc start`, `npm run svc -- start`, `node dist/src/runtime/cli.js start` (with or without the Node flags) and the `svc`
// bin itself. Each runs as a user runs it, in a package of its own (the real bin and scripts of package.json, the built
// service linked in, the default gateway.yaml), one after the other on the same data directory, each on two ports of
// its own: the ways that go through the start script or the `svc` shebang run the server with their environment
// variables and Node flags; after the signal, the whole process tree is gone, both ports are free, and the next start
// gets the store. The last start, on the ports of the way before it, is `npm start` as a process manager runs it: its
// banner names what each listener is bound to and a URL that reaches it, the admin listener stays on loopback by
// default, and SIGTERM to npm drains the server and exits 0.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ROOT, cleanEnv } from '../helpers/cli.ts';
import { freePort, portIsFree } from '../helpers/ports.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { startSettings } from '../../bench/processes.ts';

// npx installs the package into a fresh cache on its first run here; every start creates or opens the store.
t.setTimeout(900_000);

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
};

const dir = mkdtempSync(join(tmpdir(), 'svc-stop-on-signal-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(
  join(dir, 'package.json'),
  JSON.stringify({
    name: 'svc',
    version: '0.0.0',
    private: true,
    bin: pkg.bin,
    scripts: { start: pkg.scripts.start, svc: pkg.scripts.svc },
  }),
);
symlinkSync(join(ROOT, 'dist'), join(dir, 'dist'));
symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
cpSync(join(ROOT, 'gateway.yaml'), join(dir, 'gateway.yaml'));
mkdirSync(join(dir, 'npm-cache'));
const env = cleanEnv({
  // npx installs the package it runs into npm's cache: a cache of this test's own, removed with it.
  npm_config_cache: join(dir, 'npm-cache'),
  npm_config_update_notifier: 'false',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
});

/** The processes descended from `root` (by /proc), the root included. */
function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid …: comm may hold spaces, so read from the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // ended meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++)
    for (const [pid, ppid] of parents) if (ppid === tree[i] && !tree.includes(pid)) tree.push(pid);
  return tree;
}

/** Whether a process still runs (a zombie has ended: it only waits for its parent to read its exit status). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** How the start script and the shebang start the server: their environment variables and Node flags. */
const START = startSettings();

/** A way to start svc; `settings`: it starts the server through the start script or the shebang, with their settings. */
interface Way {
  how: string;
  command: string[];
  signal: NodeJS.Signals;
  to?: 'group';
  settings?: true;
}

const ways: Way[] = [
  { how: 'npm start', command: ['npm', 'start', '--'], signal: 'SIGINT', settings: true },
  { how: 'npx svc start', command: ['npx', 'svc', 'start'], signal: 'SIGTERM', settings: true },
  // Ctrl-C at a terminal: SIGINT to the foreground process group, npm, its shell and the server alike (npm passes a
  // SIGINT sent to it alone to its shell only, which dash, waiting for the server, ignores: docs/operations.md).
  { how: 'npx svc start', command: ['npx', 'svc', 'start'], signal: 'SIGINT', to: 'group', settings: true },
  { how: 'npm run svc -- start', command: ['npm', 'run', 'svc', '--', 'start'], signal: 'SIGTERM', settings: true },
  {
    how: 'node dist/src/runtime/cli.js start',
    command: [process.execPath, 'dist/src/runtime/cli.js', 'start'],
    signal: 'SIGTERM',
  },
  {
    how: 'node <flags> dist/src/runtime/cli.js start',
    command: [process.execPath, ...START.flags.split(/\s+/).filter(Boolean), 'dist/src/runtime/cli.js', 'start'],
    signal: 'SIGINT',
  },
  // The `svc` bin as a process manager or a shell runs it: the file itself, through its #! line.
  { how: 'svc start (the bin)', command: [join(dir, pkg.bin.svc!), 'start'], signal: 'SIGTERM', settings: true },
];

// Fresh ports for each way: other test files run beside this one, and a port left free between two ways may be taken
// meanwhile. The last test reuses the ports of the way before it, which is what it is about.
let [port, adminPort] = [0, 0];

/** A non-loopback IPv4 address of this machine, if it has one. */
const externalAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

for (const way of ways)
  t.test(
    `${way.how}: ${way.signal} to it stops the whole process tree and frees the ports and the store`,
    async (t) => {
      port = await freePort();
      do adminPort = await freePort();
      while (adminPort === port);
      await startAndStop(t, way);
    },
  );

// The store and the ports the last one held.
t.test('a start after the last one gets the ports and the store; npm start says what is bound', async (t) => {
  const { code, stdout } = await startAndStop(
    t,
    { how: 'npm start', command: ['npm', 'start', '--'], signal: 'SIGTERM', settings: true },
    (stdout) => checkBanner(t, stdout),
  );
  t.equal(code, 0, 'npm exits once the server has drained');
  t.match(stdout, /SIGTERM received, draining/, 'the server itself received the signal');
});

/** The listening lines: each listener's address and scope, and a URL that reaches it. */
async function checkBanner(t: Test, stdout: () => string): Promise<void> {
  const listening = await waitFor('the listening lines', async () =>
    /svc gateway listening on (\S+):(\d+) \(([^)]+)\): (\S+)\/v1 \(role all\)\nsvc admin listening on (\S+):(\d+) \(([^)]+)\): (\S+)/.exec(
      stdout(),
    ),
  );
  const [, gatewayAddress, gatewayPort, gatewayScope, gatewayUrl, adminAddress, adminPort, adminScope, adminUrl] =
    listening;
  t.same(
    [gatewayAddress, gatewayScope],
    ['0.0.0.0', 'all interfaces'],
    'the gateway listens on every interface, and says so',
  );
  t.same([adminAddress, adminScope], ['127.0.0.1', 'loopback only'], 'the admin listener stays on loopback by default');
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
}

/**
 * The server a launch path started (the pid `/metrics` gives, one of the processes started) runs with the start
 * script's environment variables and Node flags.
 */
async function checkStartSettings(t: Test, how: string, tree: number[]): Promise<void> {
  const metrics = (await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).json()) as { process: { pid: number } };
  const server = metrics.process.pid;
  t.ok(tree.includes(server), `${how}: /metrics is answered by a process it started`);
  const environ = readFileSync(`/proc/${server}/environ`, 'utf8').split('\0');
  for (const assignment of START.env.split(/\s+/).filter(Boolean))
    t.ok(environ.includes(assignment), `${how}: the server runs with ${assignment}`);
  const argv = readFileSync(`/proc/${server}/cmdline`, 'utf8').split('\0');
  for (const flag of START.flags.split(/\s+/).filter(Boolean))
    t.ok(argv.includes(flag), `${how}: the server runs with ${flag}`);
}

/**
 * Starts one way, waits for /health, runs `whileServing` (given its stdout so far), sends the signal and checks that
 * everything ended and let go; returns the exit code of the process started and its stdout.
 */
async function startAndStop(
  t: Test,
  { how, command, signal, to, settings }: Way,
  whileServing?: (stdout: () => string) => Promise<void>,
): Promise<{ code: number | null; stdout: string }> {
  const [file, ...args] = command;
  const started = spawn(file!, [...args, '--port', String(port), '--admin-port', String(adminPort)], {
    cwd: dir,
    env,
    // A process group of its own, so the teardown can end whatever is left; the signal goes to the process alone.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  started.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  started.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = new Promise<number | null>((done) => started.on('exit', (code) => done(code)));
  t.teardown(() => {
    try {
      process.kill(-started.pid!, 'SIGKILL');
    } catch {
      // the group has ended
    }
  });

  // A process that ended fails at once; either failure carries what it printed by then.
  await waitFor(
    `${how} serving /health`,
    () => {
      if (started.exitCode !== null || started.signalCode !== null)
        throw new Error(`${how} ended (${started.exitCode ?? started.signalCode}) before serving /health`);
      return fetch(`http://127.0.0.1:${adminPort}/health`).then(
        (r) => r.status === 200,
        () => false,
      );
    },
    240_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message} (stdout: ${stdout}, stderr: ${stderr})`);
  });
  t.match(stdout, /listening on/, `${how} started`);
  await whileServing?.(() => stdout);
  const tree = processTree(started.pid!);
  if (settings) await checkStartSettings(t, how, tree);

  process.kill(to === 'group' ? -started.pid! : started.pid!, signal);
  const code = await exited;
  await waitFor(`every process of ${how} ended (${tree.join(', ')})`, () => !tree.some(running), 30_000);
  t.pass(`the ${tree.length} processes of ${how} have ended`);
  t.match(stdout, /draining/, 'the server drained');
  t.ok(await portIsFree(port, '0.0.0.0'), 'the gateway port is free');
  t.ok(await portIsFree(adminPort, '127.0.0.1'), 'the admin port is free');
  return { code, stdout };
}
