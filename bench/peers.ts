// The peers for `npm run bench -- --peers`: LiteLLM's proxy and Portkey's OSS gateway, each in front of the same
// fake upstream, pinned to the same core as our targets and measured from the outside (/proc). Installed on
// demand under bench/.peers/ (gitignored, never committed): LiteLLM, the newest `litellm[proxy]` on PyPI but the
// compromised 1.82.7 and 1.82.8, in a virtualenv; Portkey, `@portkey-ai/gateway` from npm, started with its node
// build. Rows: `litellm` (master key, no database), `litellm-governed` (a virtual key with a budget and rate limits,
// spend logs in PostgreSQL; without the database, and saying so, when its Prisma client cannot be generated),
// `portkey` (x-portkey-provider and x-portkey-custom-host headers, no config).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { stringify } from 'yaml';
import pg from 'pg';
import { lastError, PeerProcess } from './processes.ts';
import { redact } from './targets.ts';

export interface Peer {
  name: string;
  description: string;
  proc?: PeerProcess;
  unavailable?: string;
  headers: Record<string, string>;
}

const PEERS_DIR = fileURLToPath(new URL('./.peers/', import.meta.url));
const COMPROMISED_LITELLM = ['1.82.7', '1.82.8'];
const LITELLM_MASTER_KEY = 'sk-bench-litellm-master';
const READY_TIMEOUT_MS = 180_000;

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs a command for its effect, its output shown; throws with the command on failure. */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): void {
  execFileSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
}

/** Starts a peer as its own process group (so it and its workers can be stopped together), pinned to `cpu`. */
export async function startPeer(
  command: string[],
  env: NodeJS.ProcessEnv,
  url: string,
  readyPath: string,
  cpu: string | undefined,
): Promise<PeerProcess> {
  const argv = cpu ? ['taskset', '-c', cpu, ...command] : command;
  const child = spawn(argv[0], argv.slice(1), { env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const proc = new PeerProcess(child, url);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}: ${lastError(stderr)}`);
    try {
      const res = await request(url + readyPath);
      await res.body.dump();
      if (res.statusCode === 200) return proc;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await proc.stop();
      throw new Error(`not ready within ${READY_TIMEOUT_MS / 1000} s: ${lastError(stderr)}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

// ---------------------------------------------------------------------------------------------------------
// LiteLLM

function installLitellm(): { venv: string; version: string } {
  const venv = join(PEERS_DIR, 'litellm');
  const pip = join(venv, 'bin', 'pip');
  if (!existsSync(join(venv, 'bin', 'litellm'))) {
    console.log('peers: installing litellm[proxy] into bench/.peers/litellm (once) ...');
    mkdirSync(PEERS_DIR, { recursive: true });
    run('python3', ['-m', 'venv', venv]);
    run(pip, ['install', '--quiet', `litellm[proxy]${COMPROMISED_LITELLM.map((v) => `!=${v}`).join(',')}`]);
  }
  // The Prisma client LiteLLM needs for its database (virtual keys, budgets, spend logs).
  if (!existsSync(join(venv, 'bin', 'prisma'))) run(pip, ['install', '--quiet', 'prisma']);
  const version = execFileSync(
    join(venv, 'bin', 'python'),
    ['-c', "import importlib.metadata as m; print(m.version('litellm'))"],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  )
    .toString()
    .trim();
  if (COMPROMISED_LITELLM.includes(version))
    throw new Error(`bench/.peers/litellm holds litellm ${version}, a compromised release: delete the folder`);
  return { venv, version };
}

/**
 * Generates LiteLLM's Prisma client for its schema (needs the Prisma CLI and engines, fetched on first use); the
 * reason when that fails.
 */
function generatePrisma(venv: string): string | undefined {
  try {
    const schema = execFileSync(
      join(venv, 'bin', 'python'),
      ['-c', "import litellm.proxy, os; print(os.path.join(os.path.dirname(litellm.proxy.__file__), 'schema.prisma'))"],
      { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, LITELLM_LOCAL_MODEL_COST_MAP: 'True' } },
    )
      .toString()
      .trim();
    execFileSync(join(venv, 'bin', 'prisma'), ['generate', `--schema=${schema}`], {
      env: { ...process.env, PATH: `${join(venv, 'bin')}:${process.env.PATH}` },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 300_000,
    });
    return undefined;
  } catch (err) {
    const e = err as { stderr?: Buffer; stdout?: Buffer; message: string };
    return lastError(`${e.message}\n${e.stdout?.toString() ?? ''}\n${e.stderr?.toString() ?? ''}`);
  }
}

function litellmConfig(upstreamBaseUrl: string, governed: boolean): Record<string, unknown> {
  return {
    model_list: [
      {
        model_name: 'bench',
        litellm_params: {
          model: 'openai/fake-model',
          api_base: upstreamBaseUrl,
          api_key: 'sk-upstream-bench',
          ...(governed ? { rpm: 100_000_000, tpm: 2_000_000_000 } : {}),
        },
      },
    ],
    general_settings: { master_key: LITELLM_MASTER_KEY },
    litellm_settings: {
      drop_params: true,
      telemetry: false,
      ...(governed ? { max_budget: 1_000_000, budget_duration: '30d' } : {}),
    },
  };
}

async function startLitellm(
  venv: string,
  upstreamBaseUrl: string,
  cpu: string | undefined,
  name: string,
  databaseUrl?: string,
): Promise<PeerProcess> {
  const governed = name !== 'litellm';
  const dir = join(PEERS_DIR, 'run');
  mkdirSync(dir, { recursive: true });
  const config = join(dir, `${name}.yaml`);
  writeFileSync(config, stringify(litellmConfig(upstreamBaseUrl, governed)));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${join(venv, 'bin')}:${process.env.PATH}`,
    LITELLM_LOG: 'ERROR',
    LITELLM_MODE: 'PRODUCTION',
    // The bundled model cost map, rather than a fetch from GitHub at start.
    LITELLM_LOCAL_MODEL_COST_MAP: 'True',
  };
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const command = [join(venv, 'bin', 'litellm'), '--config', config, '--host', '127.0.0.1', '--port', String(port)];
  return startPeer(command, env, `http://127.0.0.1:${port}`, '/health/liveliness', cpu);
}

/** A virtual key with a budget and rate limits that never refuse the bench's load. */
async function litellmKey(url: string): Promise<string> {
  const res = await request(`${url}/key/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${LITELLM_MASTER_KEY}` },
    body: JSON.stringify({
      models: ['bench'],
      max_budget: 1_000_000,
      budget_duration: '30d',
      rpm_limit: 100_000_000,
      tpm_limit: 2_000_000_000,
    }),
  });
  const body = (await res.body.json()) as { key?: string };
  if (res.statusCode !== 200 || !body.key)
    throw new Error(`/key/generate answered ${res.statusCode}: ${JSON.stringify(body)}`);
  return body.key;
}

const bearer = (key: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${key}` });
const reason = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 300);

async function litellmPeers(
  upstreamBaseUrl: string,
  cpu: string | undefined,
  postgres: string,
  notes: string[],
  drops: (() => Promise<void>)[],
): Promise<Peer[]> {
  let installed: { venv: string; version: string };
  try {
    installed = installLitellm();
  } catch (err) {
    const unavailable = `install failed: ${reason(err)}`;
    return ['litellm', 'litellm-governed'].map((name) => ({ name, description: 'LiteLLM', unavailable, headers: {} }));
  }
  const { venv, version } = installed;
  const plain: Peer = {
    name: 'litellm',
    description: `LiteLLM ${version} proxy: master key, no database`,
    headers: bearer(LITELLM_MASTER_KEY),
  };
  try {
    plain.proc = await startLitellm(venv, upstreamBaseUrl, cpu, 'litellm');
  } catch (err) {
    plain.unavailable = `did not start: ${reason(err)}`;
  }

  const governed: Peer = { name: 'litellm-governed', description: '', headers: {} };
  let database: string | undefined;
  const prismaFailure = generatePrisma(venv);
  if (prismaFailure) {
    notes.push(`litellm-governed runs without its database: Prisma client generation failed (${prismaFailure})`);
  } else {
    try {
      const name = `svc_bench_${process.pid}_litellm`;
      const admin = new pg.Client({ connectionString: postgres, connectionTimeoutMillis: 5000 });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      drops.push(async () => {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      });
      const url = new URL(postgres);
      url.pathname = `/${name}`;
      database = url.toString();
    } catch (err) {
      notes.push(`litellm-governed runs without its database: PostgreSQL at ${redact(postgres)}: ${reason(err)}`);
    }
  }
  try {
    governed.proc = await startLitellm(venv, upstreamBaseUrl, cpu, 'litellm-governed', database);
    if (database) {
      governed.headers = bearer(await litellmKey(governed.proc.url));
      governed.description =
        `LiteLLM ${version}: a virtual key with a budget and rpm/tpm limits, deployment rpm/tpm, ` +
        'spend logs in PostgreSQL';
    } else {
      governed.headers = bearer(LITELLM_MASTER_KEY);
      governed.description = `LiteLLM ${version}: proxy budget and deployment rpm/tpm, master key, NO database`;
    }
  } catch (err) {
    governed.description = `LiteLLM ${version}, governed`;
    governed.unavailable = `did not start: ${reason(err)}`;
    await governed.proc?.stop();
    governed.proc = undefined;
  }
  return [plain, governed];
}

// ---------------------------------------------------------------------------------------------------------
// Portkey

function installPortkey(): { entry: string; version: string } {
  const dir = join(PEERS_DIR, 'portkey');
  const pkg = join(dir, 'node_modules', '@portkey-ai', 'gateway');
  if (!existsSync(join(pkg, 'build', 'start-server.js'))) {
    console.log('peers: installing @portkey-ai/gateway into bench/.peers/portkey (once) ...');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
    run('npm', ['install', '--no-audit', '--no-fund', '--silent', '@portkey-ai/gateway'], { cwd: dir });
  }
  const version = (
    JSON.parse(execFileSync(process.execPath, ['-p', `JSON.stringify(require('${pkg}/package.json'))`]).toString()) as {
      version: string;
    }
  ).version;
  return { entry: join(pkg, 'build', 'start-server.js'), version };
}

async function portkeyPeer(upstreamBaseUrl: string, cpu: string | undefined): Promise<Peer> {
  const headers = {
    'content-type': 'application/json',
    authorization: 'Bearer sk-upstream-bench',
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': upstreamBaseUrl,
  };
  try {
    const { entry, version } = installPortkey();
    const port = await freePort();
    const proc = await startPeer(
      [process.execPath, entry, `--port=${port}`, '--headless'],
      { ...process.env, NODE_ENV: 'production' },
      `http://127.0.0.1:${port}`,
      '/',
      cpu,
    );
    return {
      name: 'portkey',
      description: `Portkey OSS gateway ${version}: x-portkey-provider openai with x-portkey-custom-host, no config`,
      proc,
      headers,
    };
  } catch (err) {
    return { name: 'portkey', description: 'Portkey OSS gateway', unavailable: reason(err), headers };
  }
}

export interface StartedPeers {
  peers: Peer[];
  /** Said under the peers' table: what could not be set up as asked. */
  notes: string[];
  release(): Promise<void>;
}

export async function startPeers(
  upstreamBaseUrl: string,
  cpu: string | undefined,
  postgres: string,
): Promise<StartedPeers> {
  const notes: string[] = [];
  const drops: (() => Promise<void>)[] = [];
  const peers = [
    ...(await litellmPeers(upstreamBaseUrl, cpu, postgres, notes, drops)),
    await portkeyPeer(upstreamBaseUrl, cpu),
  ];
  return {
    peers,
    notes,
    async release() {
      await Promise.all(peers.map((p) => p.proc?.stop()));
      for (const drop of drops) await drop().catch(() => {});
    },
  };
}
