// The memory of a gateway replica as operators deploy it: `svc start --role gateway` (the built CLI, with the start
// script's environment and Node flags) on a PostgreSQL database of its own, in front of the bench's fake upstream. For each
// configuration it reads the process's resident memory (/proc: VmRSS, split into anonymous and file-backed pages)
// once the replica has settled after start, and again after a keep-alive load of unique requests; and the CPU the
// replica spent per request of that load.
//
//   node bench/replica-memory.ts [--configs gateway,traced,governed] [--requests 6000] [--connections 16]
//                                [--workers 1] [--runs 1] [--node-flags='…'] [--node-env='NAME=value …']
//                                [--postgres URL]
// Needs `npm run build` (dist/) first, as `npm start` does.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { startFakeUpstream } from './fake-upstream.ts';
import { benchConfig } from './gateway-target.ts';
import { throughput } from './load.ts';
import { PATH, SVC_HEADERS, UNIQUE_BODY } from './measure.ts';
import { freePort, startPeer } from './peers.ts';
import { parseEnvAssignments, startScriptEnv, startScriptFlags } from './processes.ts';
import { scratchPostgres } from './scratch-database.ts';

const { values: opts } = parseArgs({
  options: {
    configs: { type: 'string', default: 'gateway,traced,governed' },
    requests: { type: 'string', default: '6000' },
    connections: { type: 'string', default: '16' },
    workers: { type: 'string', default: '1' },
    runs: { type: 'string', default: '1' },
    // The replica's Node flags; default: the start script's.
    'node-flags': { type: 'string', default: startScriptFlags() },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    // The replica's environment variables beside this process's; default: those the start script sets.
    'node-env': { type: 'string', default: startScriptEnv() },
  },
});

/** What each configuration turns on besides auth and the router. */
const CONFIGS: Record<string, { tracing: boolean; policies?: 'memory'; description: string }> = {
  gateway: { tracing: false, description: 'auth + router' },
  traced: { tracing: true, description: 'auth + router + tracing' },
  governed: { tracing: true, policies: 'memory', description: 'all policies + tracing, in-process counters' },
};

const SETTLE_AFTER_START_MS = 5000;
const SETTLE_AFTER_LOAD_MS = 3000;

/** Resident memory of a process from /proc/PID/status, MB: the total and its anonymous and file-backed parts. */
function residentMb(pid: number): { rss: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile') + kb('RssShmem') };
}

/** Minor page faults of a process so far (/proc/PID/stat, field 10). */
function minorFaults(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
}

async function measureReplica(name: string, upstreamUrl: string): Promise<string> {
  const config = CONFIGS[name];
  if (!config) throw new Error(`unknown configuration ${name} (known: ${Object.keys(CONFIGS).join(', ')})`);
  const database = await scratchPostgres(opts.postgres, 'svc_bench_replica');
  const dir = mkdtempSync(join(tmpdir(), 'svc-replica-'));
  try {
    const yaml = benchConfig(upstreamUrl, join(dir, 'data'), config.tracing, undefined, config.policies) as {
      server: Record<string, unknown>;
      store: Record<string, unknown>;
    };
    const [port, adminPort] = [await freePort(), await freePort()];
    Object.assign(yaml.server, { port, admin_port: adminPort, workers: Number(opts.workers) });
    yaml.store.postgres_url = database.url;
    writeFileSync(join(dir, 'gateway.yaml'), stringify(yaml));
    const cli = new URL('../dist/src/runtime/cli.js', import.meta.url).pathname;
    const command = [process.execPath, ...opts['node-flags'].split(' ').filter(Boolean), cli, 'start'];
    command.push('--role', 'gateway', '--config', join(dir, 'gateway.yaml'));
    const url = `http://127.0.0.1:${port}`;
    const env = { ...process.env, NODE_ENV: 'production', ...parseEnvAssignments(opts['node-env']) };
    const proc = await startPeer(command, env, url, '/ready', undefined);
    try {
      await new Promise((r) => setTimeout(r, SETTLE_AFTER_START_MS));
      const started = residentMb(proc.pid);
      const cpuBefore = await proc.cpu();
      const faultsBefore = minorFaults(proc.pid);
      const load = await throughput({ url, path: PATH, headers: SVC_HEADERS }, UNIQUE_BODY, {
        connections: Number(opts.connections),
        amount: Number(opts.requests),
      });
      if (load.bad > 0) throw new Error(`${load.bad} of ${load.ok + load.bad} requests failed`);
      await new Promise((r) => setTimeout(r, SETTLE_AFTER_LOAD_MS));
      // Read after the settling pause, so that trace writes for the load are counted in.
      const cpuPerRequest = (await proc.cpu()) - cpuBefore;
      const faults = minorFaults(proc.pid) - faultsBefore;
      const loaded = residentMb(proc.pid);
      const f = (m: { rss: number; anon: number; file: number }) =>
        `${m.rss.toFixed(0)} MB (anon ${m.anon.toFixed(0)}, file ${m.file.toFixed(0)})`;
      return (
        `${name.padEnd(9)} ${config.description}: after start ${f(started)}; after load ${f(loaded)}; ` +
        `${Math.round(cpuPerRequest / load.ok)} µs CPU per request, ${(faults / load.ok).toFixed(1)} faults per request, ${Math.round(load.rps)} req/s`
      );
    } finally {
      await proc.stop();
    }
  } finally {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const upstream = await startFakeUpstream();
try {
  console.log(
    `svc start --role gateway on PostgreSQL, server.workers ${opts.workers}, Node flags ${opts['node-flags']}, environment ${opts['node-env'] || '-'}; load: ${opts.requests} unique requests ` +
      `at ${opts.connections} connections; ${new Date().toISOString()}`,
  );
  for (let run = 0; run < Number(opts.runs); run++) {
    for (const name of opts.configs.split(',')) console.log(await measureReplica(name, upstream.url));
  }
} finally {
  await upstream.close();
}
