// `npm run bench`: the gateway against the floor (a bare undici pass-through proxy), both in front of one
// fake upstream. Servers run in child processes; the load comes from this process. See docs/performance.md.
//
//   node bench/run.ts [--rounds 5] [--duration 3] [--latency-duration 2] [--ttfb-duration 2]
//                     [--connections 32] [--rate N] [--no-pin] [--profile gateway,floor,upstream] [--json out.json] [--check]
//                     [--postgres postgres://postgres@127.0.0.1:5432/postgres] [--policies memory|redis[=URL]]
//                     [--no-thresholds] [--deployments 1]
// The gateways use the embedded store (PGlite) unless --postgres names a server: then the bench creates a database
// of its own there for the run and drops it after. Targets: the floor, the gateway, the gateway with tracing, and
// the gateway translating to and from Anthropic's Messages API. After the table, the worker-thread threshold
// benches run (bench/anthropic-worker-threshold.ts, bench/bedrock-sigv4-hash.ts) unless --no-thresholds.
// --policies runs the gateways with guardrails, rate-limit and budget on (bench/gateway-target.ts), with
// in-process counters or Redis (default redis://127.0.0.1:6379). --deployments N puts N deployments (equal weights,
// all at the fake upstream) in the bench group, so the router reads the group's bench state on every request.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { BENCH_GROUP, BENCH_KEY } from './gateway-target.ts';
import { median, percentile, throughput, timedSequential, type Target } from './load.ts';
import type { FromChild, Role, ToChild } from './server-process.ts';

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '3' },
    'latency-duration': { type: 'string', default: '2' },
    'ttfb-duration': { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    rate: { type: 'string' },
    'no-pin': { type: 'boolean', default: false },
    profile: { type: 'string' },
    json: { type: 'string' },
    check: { type: 'boolean', default: false },
    postgres: { type: 'string' },
    policies: { type: 'string' },
    'no-thresholds': { type: 'boolean', default: false },
    deployments: { type: 'string', default: '1' },
  },
});
const ROUNDS = Number(opts.rounds);
const DURATION = Number(opts.duration);
const LATENCY_DURATION = Number(opts['latency-duration']);
const TTFB_DURATION = Number(opts['ttfb-duration']);
const CONNECTIONS = Number(opts.connections);
/** Optional cap on requests/s for the multi-connection run, to compare CPU per request at equal load. */
const RATE = opts.rate ? Number(opts.rate) : undefined;

/** The issue's targets for the gateway against the floor. */
const GOALS = { rpsRatio: 0.8, addedP50Ms: 0.1, addedTtfbMs: 0.3 };

const REQUEST = {
  model: BENCH_GROUP,
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Say hello in one short sentence.' },
  ],
  max_tokens: 64,
  temperature: 0.2,
};
const JSON_BODY = JSON.stringify(REQUEST);
const STREAM_BODY = JSON.stringify({ ...REQUEST, stream: true });
const HEADERS = { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` };
const PATH = '/v1/chat/completions';

// ---------------------------------------------------------------------------------------------------------
// Server processes

class ServerProcess {
  readonly role: Role;
  readonly child: ChildProcess;
  url = '';
  private nextId = 0;
  private readonly waiting = new Map<number, (us: number) => void>();

  private constructor(role: Role, child: ChildProcess) {
    this.role = role;
    this.child = child;
  }

  static start(role: Role, args: string[], execArgv: string[] = []): Promise<ServerProcess> {
    const entry = fileURLToPath(new URL('./server-process.ts', import.meta.url));
    const child = spawn(process.execPath, [...execArgv, entry, role, ...args], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const proc = new ServerProcess(role, child);
    return new Promise((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`${role} server exited with code ${code} before it was ready`)));
      child.on('message', (m: FromChild) => {
        if (m.type === 'ready') {
          proc.url = m.url;
          resolve(proc);
        } else if (m.type === 'cpu' || m.type === 'done') {
          proc.waiting.get(m.id)?.(m.type === 'cpu' ? m.user + m.system : 0);
          proc.waiting.delete(m.id);
        }
      });
    });
  }

  /** CPU time (user + system) the process has used so far, in microseconds. */
  cpu(): Promise<number> {
    return this.call((id) => ({ type: 'cpu', id }));
  }

  /** Starts the V8 CPU profiler in the process (after warm-up, so start-up is not in the profile). */
  startProfile(): Promise<unknown> {
    return this.call((id) => ({ type: 'profile-start', id }));
  }

  /** Waits until the process's background work for the requests so far (trace writes) is done. */
  settle(): Promise<unknown> {
    return this.call((id) => ({ type: 'settle', id }));
  }

  stopProfile(path: string): Promise<unknown> {
    return this.call((id) => ({ type: 'profile-stop', id, path }));
  }

  private call(message: (id: number) => ToChild): Promise<number> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.send(message(id));
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.removeAllListeners('exit');
      this.child.once('exit', () => resolve());
      this.child.send({ type: 'stop' } satisfies ToChild);
    });
  }
}

/** A database of the bench's own on the given server, for the gateways' store; dropped after the run. */
async function benchDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import('pg');
  const name = `svc_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** Pins every thread of a process to the given CPUs; false when taskset is missing or refused. */
function pin(pid: number, cpuList: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-cp', cpuList, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Measurements

interface RoundResult {
  rps: number;
  /** Server CPU per request at CONNECTIONS connections, microseconds. */
  cpuPerReq: number;
  /** Server CPU use during the throughput run, in cores (1 = one core busy all the time). */
  cpuCores: number;
  upstreamCpuPerReq: number;
  p50: number;
  p99: number;
  /** Server CPU per request at one connection, microseconds. */
  cpuPerReq1: number;
  ttfbP50: number;
  ttfbHeadersP50: number;
  streamTotalP50: number;
  /** This process's (autocannon's) CPU per request during the throughput run, microseconds. */
  loadCpuPerReq: number;
  /** CPU used by processes outside the bench while this target was measured, in cores (noise). */
  otherLoad: number;
  bad: number;
  /** How long the server still worked (wrote traces) after the throughput run ended, ms; included in cpuPerReq. */
  settleMs: number;
}

/** Busy and total CPU ticks of the machine (Linux /proc/stat), or undefined elsewhere. */
function systemTicks(): { busy: number; total: number } | undefined {
  try {
    // user nice system idle iowait irq softirq steal (guest time is already inside user and nice)
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1, 9).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    return { busy: total - fields[3] - (fields[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

/** utime + stime of a process in clock ticks (Linux /proc/PID/stat). */
function processTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

let benchPids: number[] = [];
const ourTicks = () => benchPids.reduce((sum, pid) => sum + processTicks(pid), 0);

/** Requests each server answered from the load generator after warm-up, to turn a CPU profile into time per request. */
const served = new Map<ServerProcess, number>();
const tally = (proc: ServerProcess, n: number) => served.set(proc, (served.get(proc) ?? 0) + n);

async function measure(proc: ServerProcess, upstream: ServerProcess): Promise<RoundResult> {
  const target: Target = { url: proc.url.replace(/\/v1$/, ''), path: PATH, headers: HEADERS };
  const s0 = systemTicks();
  const o0 = ourTicks();
  const [c0, u0] = await Promise.all([proc.cpu(), upstream.cpu()]);
  const l0 = process.cpuUsage();
  const tp = await throughput(target, JSON_BODY, CONNECTIONS, DURATION, RATE);
  const l1 = process.cpuUsage(l0);
  // Trace writes run behind the requests: their CPU counts for the requests that caused them, and they must not
  // spill into the next target's measurement on the shared core.
  const settleStart = performance.now();
  await proc.settle();
  const settleMs = performance.now() - settleStart;
  const [c1, u1] = await Promise.all([proc.cpu(), upstream.cpu()]);
  const lat = await timedSequential(target, JSON_BODY, LATENCY_DURATION, '}');
  await proc.settle();
  const c2 = await proc.cpu();
  const tt = await timedSequential(target, STREAM_BODY, TTFB_DURATION, 'data: [DONE]\n\n');
  await proc.settle();
  tally(proc, tp.ok + tp.bad + lat.count + lat.bad + tt.count + tt.bad);
  const s1 = systemTicks();
  const o1 = ourTicks();
  const cores = availableParallelism();
  const otherLoad =
    s0 && s1 && s1.total > s0.total
      ? Math.max(0, (s1.busy - s0.busy - (o1 - o0)) / ((s1.total - s0.total) / cores))
      : Number.NaN;
  return {
    rps: tp.rps,
    cpuPerReq: (c1 - c0) / tp.ok,
    cpuCores: (c1 - c0) / (tp.seconds * 1e6),
    upstreamCpuPerReq: proc === upstream ? Number.NaN : (u1 - u0) / tp.ok,
    loadCpuPerReq: (l1.user + l1.system) / tp.ok,
    otherLoad,
    p50: percentile(lat.total, 50),
    p99: percentile(lat.total, 99),
    cpuPerReq1: (c2 - c1) / lat.count,
    ttfbP50: percentile(tt.firstByte, 50),
    ttfbHeadersP50: percentile(tt.headers, 50),
    streamTotalP50: percentile(tt.total, 50),
    bad: tp.bad + lat.bad + tt.bad,
    settleMs,
  };
}

/** One JSON and one streamed request through a target, checked, before anything is measured. */
async function sanityCheck(name: string, url: string): Promise<void> {
  const json = await request(url + PATH, { method: 'POST', headers: HEADERS, body: JSON_BODY });
  const parsed = (await json.body.json()) as { choices?: { message?: { content?: string } }[] };
  if (json.statusCode !== 200 || typeof parsed.choices?.[0]?.message?.content !== 'string') {
    throw new Error(`${name}: chat completion failed (${json.statusCode}): ${JSON.stringify(parsed)}`);
  }
  const stream = await request(url + PATH, { method: 'POST', headers: HEADERS, body: STREAM_BODY });
  const text = await stream.body.text();
  const events = text.split('\n\n').filter((e) => e.startsWith('data: '));
  if (
    stream.statusCode !== 200 ||
    events.length < 3 ||
    events.at(-1) !== 'data: [DONE]' ||
    !text.includes('"content":"Hello!"')
  ) {
    throw new Error(`${name}: streamed chat completion failed (${stream.statusCode}): ${text.slice(0, 500)}`);
  }
}

async function warmUp(proc: ServerProcess): Promise<void> {
  const target: Target = { url: proc.url.replace(/\/v1$/, ''), path: PATH, headers: HEADERS };
  const a = await throughput(target, JSON_BODY, CONNECTIONS, 2);
  const b = await throughput(target, STREAM_BODY, CONNECTIONS, 1);
  const c = await timedSequential(target, JSON_BODY, 0.5, '}');
  const d = await timedSequential(target, STREAM_BODY, 0.5, 'data: [DONE]\n\n');
  tally(proc, a.ok + a.bad + b.ok + b.bad + c.count + c.bad + d.count + d.bad);
}

// ---------------------------------------------------------------------------------------------------------
// Report

const f = (v: number, digits: number) => (Number.isNaN(v) ? 'n/a' : v.toFixed(digits));
const signed = (v: number, digits: number) => (v >= 0 ? '+' : '') + f(v, digits);

function roundLine(round: number, name: string, r: RoundResult): string {
  return (
    `round ${round}/${ROUNDS}  ${name.padEnd(7)}  ${f(r.rps, 0).padStart(6)} req/s  ` +
    `p50 ${f(r.p50, 3)} ms  p99 ${f(r.p99, 3)} ms  ttfb ${f(r.ttfbP50, 3)} ms  ` +
    `cpu ${f(r.cpuPerReq, 1)} µs/req (${f(r.cpuCores * 100, 0)}% of a core)  load gen ${f(r.loadCpuPerReq, 1)} µs/req  ` +
    `other load ${f(r.otherLoad, 2)} cores` +
    (r.bad > 0 ? `  ${r.bad} FAILED` : '')
  );
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('   '))
    .join('\n');
}

async function main(): Promise<void> {
  const cores = availableParallelism();
  const profileDir = join(tmpdir(), `svc-bench-profiles-${process.pid}`);
  const profiled = new Set((opts.profile ?? '').split(',').filter(Boolean) as Role[]);

  const store = opts.postgres ? await benchDatabase(opts.postgres) : undefined;
  if (store) process.env.SVC_BENCH_POSTGRES_URL = store.url;
  if (opts.policies) {
    const [mode, url] = opts.policies.split('=');
    if (mode !== 'memory' && mode !== 'redis') throw new Error('--policies takes memory or redis[=URL]');
    process.env.SVC_BENCH_POLICIES = mode === 'redis' ? (url ?? 'redis://127.0.0.1:6379') : 'memory';
  }
  const deployments = Number(opts.deployments);
  if (!Number.isInteger(deployments) || deployments < 1) throw new Error('--deployments takes a whole number from 1');
  process.env.SVC_BENCH_DEPLOYMENTS = String(deployments);
  const upstream = await ServerProcess.start('upstream', []);
  const upstreamUrl = upstream.url;
  const [floor, gateway, traced, anthropic] = await Promise.all([
    ServerProcess.start('floor', [upstreamUrl]),
    ServerProcess.start('gateway', [upstreamUrl]),
    ServerProcess.start('gateway-traced', [upstreamUrl]),
    ServerProcess.start('gateway-anthropic', [upstreamUrl]),
  ]);
  const all = [upstream, floor, gateway, traced, anthropic];
  benchPids = [process.pid, ...all.map((p) => p.child.pid!)];

  // With 2 cores: the measured server gets a core of its own, the load generator and the upstream share the
  // other. With 3 or more: one core each.
  let placement = 'not pinned (--no-pin)';
  if (!opts['no-pin'] && cores >= 2) {
    const targetCpu = String(cores >= 3 ? 2 : 1);
    const upstreamCpu = cores >= 3 ? '1' : '0';
    const ok = [
      pin(process.pid, '0'),
      pin(upstream.child.pid!, upstreamCpu),
      pin(floor.child.pid!, targetCpu),
      pin(gateway.child.pid!, targetCpu),
      pin(traced.child.pid!, targetCpu),
      pin(anthropic.child.pid!, targetCpu),
    ];
    placement = ok.every(Boolean)
      ? `pinned: server under test on CPU ${targetCpu}, upstream on CPU ${upstreamCpu}, load generator on CPU 0`
      : 'not pinned (taskset unavailable or refused)';
  } else if (cores < 2) placement = 'not pinned (1 core)';

  const targets: [string, ServerProcess][] = [
    ['floor', floor],
    ['gateway', gateway],
    ['traced', traced],
    ['anthropic', anthropic],
  ];
  const started = performance.now();
  console.log(
    `store: ${store ? `PostgreSQL (${new URL(store.url).host}, a database for this run)` : 'embedded (PGlite)'}`,
  );
  if (process.env.SVC_BENCH_POLICIES)
    console.log(
      `policies: guardrails, rate-limit and budget on both gateways; counters ${process.env.SVC_BENCH_POLICIES === 'memory' ? 'in-process' : `in Redis (${process.env.SVC_BENCH_POLICIES})`}`,
    );
  if (Number(process.env.SVC_BENCH_DEPLOYMENTS) > 1)
    console.log(
      `deployments: ${process.env.SVC_BENCH_DEPLOYMENTS} in the bench group, equal weights, all at the fake upstream`,
    );
  console.log(
    `svc bench: node ${process.version}, ${cores} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${placement}`,
  );
  console.log(
    `${ROUNDS} rounds; each round and target: ${DURATION} s at ${CONNECTIONS} connections, ${LATENCY_DURATION} s of sequential ` +
      `requests on 1 connection, ${TTFB_DURATION} s of sequential streamed requests on 1 connection` +
      `${RATE ? `; the ${CONNECTIONS}-connection run is capped at ${RATE} req/s` : ''}\n`,
  );

  const results: Record<string, RoundResult[]> = { direct: [], floor: [], gateway: [], traced: [], anthropic: [] };
  try {
    for (const [name, proc] of targets) await sanityCheck(name, proc.url);
    for (const [, proc] of targets) await warmUp(proc);
    await warmUp(upstream);
    served.clear();
    if (profiled.size > 0) {
      mkdirSync(profileDir, { recursive: true });
      for (const p of all) if (profiled.has(p.role)) await p.startProfile();
    }
    for (let round = 1; round <= ROUNDS; round++) {
      // Interleaved, and the order alternates so neither target always runs first in a round. The upstream
      // alone ("direct", no proxy) is measured too, as a reference for the load generator's own ceiling.
      const order: [string, ServerProcess][] = [
        ['direct', upstream],
        ...(round % 2 === 1 ? targets : [...targets].reverse()),
      ];
      for (const [name, proc] of order) {
        const r = await measure(proc, upstream);
        results[name].push(r);
        console.log(roundLine(round, name, r));
      }
    }
    for (const p of all) if (profiled.has(p.role)) await p.stopProfile(join(profileDir, `${p.role}.cpuprofile`));
  } finally {
    await Promise.all(all.map((p) => p.stop()));
    await store?.drop();
  }
  const elapsed = (performance.now() - started) / 1000;

  const fl = results.floor;
  const gw = results.gateway;
  const med = (rs: RoundResult[], k: keyof RoundResult) => median(rs.map((r) => r[k]));
  // Ratios and differences are taken per round (the two targets ran back to back), then the median.
  const tr = results.traced;
  const paired = (fn: (g: RoundResult, fl: RoundResult) => number, of = gw) => median(of.map((g, i) => fn(g, fl[i])));
  const rpsRatio = paired((g, l) => g.rps / l.rps);
  const addedP50 = paired((g, l) => g.p50 - l.p50);
  const addedP99 = paired((g, l) => g.p99 - l.p99);
  const addedTtfb = paired((g, l) => g.ttfbP50 - l.ttfbP50);
  const cpuRatio = paired((g, l) => g.cpuPerReq / l.cpuPerReq);
  const cpuRatio1 = paired((g, l) => g.cpuPerReq1 / l.cpuPerReq1);
  const addedCpu = paired((g, l) => g.cpuPerReq - l.cpuPerReq);
  const an = results.anthropic;
  const againstFloor = (of: RoundResult[]) => ({
    rpsRatio: paired((g, l) => g.rps / l.rps, of),
    addedP50: paired((g, l) => g.p50 - l.p50, of),
    addedTtfb: paired((g, l) => g.ttfbP50 - l.ttfbP50, of),
    cpuRatio: paired((g, l) => g.cpuPerReq / l.cpuPerReq, of),
  });
  const tracedRatios = againstFloor(tr);
  const anthropicRatios = againstFloor(an);

  const dr = results.direct;
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const cols = (k: keyof RoundResult, digits: number) => [dr, fl, gw, tr, an].map((rs) => f(med(rs, k), digits));
  const rows: string[][] = [
    ['median of rounds', 'direct', 'floor', 'gateway', 'traced', 'anthropic', 'gateway vs floor', 'target', ''],
    [
      `req/s at ${CONNECTIONS} connections`,
      ...cols('rps', 0),
      `${f(rpsRatio, 2)}x`,
      `>= ${GOALS.rpsRatio}x`,
      verdict(rpsRatio >= GOALS.rpsRatio),
    ],
    [
      'latency p50, 1 connection (ms)',
      ...cols('p50', 3),
      `${signed(addedP50, 3)} ms`,
      `< +${GOALS.addedP50Ms} ms`,
      verdict(addedP50 < GOALS.addedP50Ms),
    ],
    ['latency p99, 1 connection (ms)', ...cols('p99', 3), `${signed(addedP99, 3)} ms`, '', ''],
    [
      'stream first byte p50, 1 conn (ms)',
      ...cols('ttfbP50', 3),
      `${signed(addedTtfb, 3)} ms`,
      `< +${GOALS.addedTtfbMs} ms`,
      verdict(addedTtfb < GOALS.addedTtfbMs),
    ],
    ['stream headers p50, 1 conn (ms)', ...cols('ttfbHeadersP50', 3), '', '', ''],
    ['stream complete p50, 1 conn (ms)', ...cols('streamTotalP50', 3), '', '', ''],
    [
      `server CPU/request, ${CONNECTIONS} conns (µs)`,
      ...cols('cpuPerReq', 1),
      `${f(cpuRatio, 2)}x (${signed(addedCpu, 1)} µs)`,
      '',
      '',
    ],
    ['server CPU/request, 1 conn (µs)', ...cols('cpuPerReq1', 1), `${f(cpuRatio1, 2)}x`, '', ''],
    [`server CPU use at ${CONNECTIONS} conns (cores)`, ...cols('cpuCores', 2), '', '', ''],
    ['upstream CPU/request (µs)', ...cols('upstreamCpuPerReq', 1), '', '', ''],
    [`trace writes after the ${CONNECTIONS}-conn run (ms)`, ...cols('settleMs', 0), '', '', ''],
    ['load generator CPU/request (µs)', ...cols('loadCpuPerReq', 1), '', '', ''],
    ['other load on the machine (cores)', ...cols('otherLoad', 2), '', '', ''],
  ];
  console.log(`\n${table(rows)}\n`);
  const perRound = (fn: (g: RoundResult, l: RoundResult) => number, digits: number) =>
    gw.map((g, i) => f(fn(g, fl[i]), digits)).join(' ');
  console.log(`per round, gateway/floor req/s:     ${perRound((g, l) => g.rps / l.rps, 2)}`);
  console.log(`per round, added p50 (ms):          ${perRound((g, l) => g.p50 - l.p50, 3)}`);
  console.log(`per round, added first byte (ms):   ${perRound((g, l) => g.ttfbP50 - l.ttfbP50, 3)}`);
  console.log(`per round, gateway/floor CPU/req:   ${perRound((g, l) => g.cpuPerReq / l.cpuPerReq, 2)}\n`);
  const summary = (what: string, rs: RoundResult[], r: ReturnType<typeof againstFloor>) =>
    console.log(
      `${what}, median of rounds: ${f(med(rs, 'rps'), 0)} req/s, ${f(r.rpsRatio, 2)}x the floor; ` +
        `p50 ${signed(r.addedP50, 3)} ms and first byte ${signed(r.addedTtfb, 3)} ms over the floor; CPU/request ${f(r.cpuRatio, 2)}x the floor`,
    );
  summary(`with tracing on (${store ? 'PostgreSQL' : 'embedded'} store)`, tr, tracedRatios);
  summary('translated to and from Anthropic Messages', an, anthropicRatios);
  console.log('');
  const failed = [...fl, ...gw, ...tr, ...an].reduce((n, r) => n + r.bad, 0);
  if (failed > 0) console.log(`WARNING: ${failed} requests failed or had an unexpected body; figures are suspect.`);
  if (!RATE && med(fl, 'cpuCores') < 0.85) {
    console.log(
      'NOTE: the floor did not keep its core busy at full load; the load generator or upstream may be the bottleneck.',
    );
  }
  const measured = [...dr, ...fl, ...gw, ...tr, ...an];
  const noisy = measured.filter((r) => r.otherLoad > 0.1).length;
  if (noisy > 0)
    console.log(
      `NOTE: other processes used more than 0.1 cores during ${noisy} of ${measured.length} measurements; expect noise.`,
    );
  console.log(`bench time ${elapsed.toFixed(0)} s`);
  if (profiled.size > 0) {
    console.log('CPU profiles (measured rounds only, after warm-up):');
    for (const p of all) {
      if (!profiled.has(p.role)) continue;
      const n = p === upstream ? '' : ` --requests ${served.get(p) ?? 0}`;
      console.log(`  node bench/profile-summary.ts ${join(profileDir, `${p.role}.cpuprofile`)}${n}`);
    }
  }

  if (!opts['no-thresholds']) {
    for (const script of ['anthropic-worker-threshold.ts', 'bedrock-sigv4-hash.ts']) {
      console.log(`\nworker-thread threshold: node bench/${script}`);
      execFileSync(process.execPath, [fileURLToPath(new URL(`./${script}`, import.meta.url))], { stdio: 'inherit' });
    }
  }

  const allMet = rpsRatio >= GOALS.rpsRatio && addedP50 < GOALS.addedP50Ms && addedTtfb < GOALS.addedTtfbMs;
  if (opts.json) {
    writeFileSync(
      opts.json,
      JSON.stringify(
        {
          node: process.version,
          cores,
          placement,
          rounds: ROUNDS,
          connections: CONNECTIONS,
          results,
          medians: Object.fromEntries(
            Object.entries(results).map(([name, rs]) => [
              name,
              Object.fromEntries(Object.keys(rs[0]).map((k) => [k, med(rs, k as keyof RoundResult)])),
            ]),
          ),
          ratios: { rpsRatio, addedP50, addedP99, addedTtfb, cpuRatio, cpuRatio1, addedCpu },
          tracedRatios,
          anthropicRatios,
          goals: GOALS,
          met: allMet,
        },
        null,
        2,
      ),
    );
  }
  process.exit(opts.check && !allMet ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
