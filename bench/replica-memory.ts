// The memory of a gateway replica as operators deploy it: `svc start --role gateway` (the built CLI, with the start
// script's environment and Node flags) on a PostgreSQL database of its own, in front of the bench's fake upstream. For
// each configuration it reads the process's resident memory (/proc: VmRSS, split into anonymous and file-backed
// pages) once the replica has settled after start, and again after a keep-alive load of unique requests; and the CPU
// time and page faults the replica spent per request of that load. Pinned as `npm run bench` pins: the replica on a
// core of its own (with `--workers N`, N cores from it), the load generator and the upstream (this process) on another.
//
//   node bench/replica-memory.ts [--configs gateway,traced,governed] [--requests 6000] [--connections 16]
//                                [--workers 1] [--runs 1] [--node-flags='…'] [--node-env='NAME=value …']
//                                [--no-pin] [--postgres URL]
// Needs `npm run build` (dist/) first, as `npm start` does.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { startFakeUpstream } from './fake-upstream.ts';
import { benchConfig } from './gateway-target.ts';
import { throughput } from './load.ts';
import { PATH, SVC_HEADERS, UNIQUE_BODY } from './measure.ts';
import { freePort, startPeer } from './peers.ts';
import { minorFaults, parseEnvAssignments, pin, placement, startSettings, statusKb, targetCpus } from './processes.ts';
import { scratchPostgres } from './scratch-database.ts';

const { values: opts } = parseArgs({
  options: {
    configs: { type: 'string', default: 'gateway,traced,governed' },
    requests: { type: 'string', default: '6000' },
    connections: { type: 'string', default: '16' },
    workers: { type: 'string', default: '1' },
    runs: { type: 'string', default: '1' },
    // The replica's Node flags and environment variables (beside this process's); default: the start script's.
    'node-flags': { type: 'string', default: startSettings().flags },
    'node-env': { type: 'string', default: startSettings().env },
    'no-pin': { type: 'boolean', default: false },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

/** What each configuration turns on besides auth and the router. */
const CONFIGS: Record<string, { tracing: boolean; policies: '' | 'memory'; description: string }> = {
  gateway: { tracing: false, policies: '', description: 'auth + router' },
  traced: { tracing: true, policies: '', description: 'auth + router + tracing' },
  governed: { tracing: true, policies: 'memory', description: 'all policies + tracing, in-process counters' },
};

const SETTLE_AFTER_START_MS = 5000;
const SETTLE_AFTER_LOAD_MS = 3000;
const CORES = availableParallelism();
const PLACE = placement(CORES, !opts['no-pin']);
const WORKERS = Number(opts.workers);

/** Resident memory of the replica's process, MB: the total and its anonymous and file-backed parts. */
function residentMb(pid: number): { rss: number; anon: number; file: number } {
  const mb = (field: string) => statusKb(pid, field) / 1024;
  return { rss: mb('VmRSS'), anon: mb('RssAnon'), file: mb('RssFile') + mb('RssShmem') };
}

async function measureReplica(name: string, upstreamUrl: string): Promise<string> {
  const config = CONFIGS[name];
  if (!config) throw new Error(`unknown configuration ${name} (known: ${Object.keys(CONFIGS).join(', ')})`);
  const database = await scratchPostgres(opts.postgres, 'svc_bench_replica');
  const dir = mkdtempSync(join(tmpdir(), 'svc-replica-'));
  try {
    // Every argument given, so that none comes from this shell's SVC_BENCH_* variables.
    const yaml = benchConfig(upstreamUrl, join(dir, 'data'), config.tracing, undefined, config.policies, 1, '') as {
      server: Record<string, unknown>;
      store: Record<string, unknown>;
    };
    const port = await freePort();
    let adminPort = await freePort();
    while (adminPort === port) adminPort = await freePort();
    Object.assign(yaml.server, { port, admin_port: adminPort, workers: WORKERS, large_request_bytes: 0 });
    yaml.store.postgres_url = database.url;
    writeFileSync(join(dir, 'gateway.yaml'), stringify(yaml));
    const cli = new URL('../dist/src/runtime/cli.js', import.meta.url).pathname;
    const command = [process.execPath, ...opts['node-flags'].split(' ').filter(Boolean), cli, 'start'];
    command.push('--role', 'gateway', '--config', join(dir, 'gateway.yaml'));
    const url = `http://127.0.0.1:${port}`;
    const env = { ...process.env, ...parseEnvAssignments(opts['node-env']) };
    const cpus = targetCpus(PLACE, CORES, WORKERS).list || undefined;
    const proc = await startPeer(command, env, url, '/ready', cpus);
    try {
      await new Promise((r) => setTimeout(r, SETTLE_AFTER_START_MS));
      const started = residentMb(proc.pid);
      const [cpuBefore, faultsBefore] = [await proc.cpu(), minorFaults(proc.pid)];
      const load = await throughput({ url, path: PATH, headers: SVC_HEADERS }, UNIQUE_BODY, {
        connections: Number(opts.connections),
        amount: Number(opts.requests),
      });
      if (load.bad > 0) throw new Error(`${load.bad} of ${load.ok + load.bad} requests failed`);
      await new Promise((r) => setTimeout(r, SETTLE_AFTER_LOAD_MS));
      const loaded = residentMb(proc.pid);
      // Read after the settling pause, so that trace writes for the load are counted in.
      const cpuUs = (await proc.cpu()) - cpuBefore;
      const faults = minorFaults(proc.pid) - faultsBefore;
      const f = (m: { rss: number; anon: number; file: number }) =>
        `${m.rss.toFixed(0)} MB (anon ${m.anon.toFixed(0)}, file ${m.file.toFixed(0)})`;
      return (
        `${name.padEnd(9)} ${config.description}: after start ${f(started)}; after load ${f(loaded)}; ` +
        `${Math.round(cpuUs / load.ok)} µs CPU per request, ${(faults / load.ok).toFixed(1)} faults per request, ` +
        `${Math.round(load.rps)} req/s`
      );
    } finally {
      await proc.stop();
    }
  } finally {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (PLACE.targetCpu) pin(process.pid, PLACE.loadCpu);
const upstream = await startFakeUpstream();
try {
  console.log(
    `svc start --role gateway on PostgreSQL, server.workers ${WORKERS}, Node flags ${opts['node-flags']}, ` +
      `environment ${opts['node-env'] || '-'}; load: ${opts.requests} unique requests at ${opts.connections} ` +
      `connections; ${PLACE.description}; ${new Date().toISOString()}`,
  );
  for (let run = 0; run < Number(opts.runs); run++) {
    for (const name of opts.configs.split(',')) console.log(await measureReplica(name, upstream.url));
  }
} finally {
  await upstream.close();
}
