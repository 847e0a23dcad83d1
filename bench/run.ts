// `npm run bench`: the gateway in each of its configurations against the floor (a bare undici pass-through
// proxy), all in front of one fake upstream, with the issue-19 goals checked. Servers run in child processes
// pinned to one core; the load comes from this process. See docs/performance.md.
//
//   node bench/run.ts [--rounds 5] [--duration 3] [--latency-duration 2] [--ttfb-duration 2]
//                     [--connections 32] [--high-connections 128] [--rate N] [--no-pin]
//                     [--targets floor,gateway,governed,governed-pg,governed-pg-redis] [--deployments 1]
//                     (a row served by N gateway threads: <row>-w<N>, e.g. --targets gateway,gateway-w2)
//                     [--strategies]   (adds a gateway row per routing strategy, over three deployments)
//                     [--postgres postgres://postgres@127.0.0.1:5432/postgres] [--redis redis://127.0.0.1:6379]
//                     [--peers] [--profile gateway,floor,upstream] [--json out.json] [--check] [--no-thresholds]
//                     [--node-flags="..."]   (the gateways' Node flags; default: those of the start script)
//                     [--node-env="NAME=value ..."]   (their environment variables; default: the start script's)
//   node bench/run.ts --soak 1000000 [--soak-target governed] [--soak-block 100000] [--connections 32] [--check]
//   node bench/run.ts --sustained [--step-duration 5] [--start-rate 200] [--max-rate 50000] [--latency-duration 10]
//                     [--targets …] [--peers] [--json out.json]
//                     [--scenarios | --no-scenarios] [--hol-rate 200] [--hol-duration 10] [--flood-rate 2000]
//                     (the gateway benchmark method: added p50/p99 at one connection over the upstream alone, and
//                     the highest rate an open-loop ramp sustains with p99 < 1 s and < 0.1 % errors, against an
//                     upstream answering in 20 ms; bench/sustained.ts. Then, per target, small requests at
//                     --hol-rate beside 4 MiB prompts and beside a wrong-key flood: bench/sustained-scenarios.ts.
//                     --scenarios runs only those, --no-scenarios only the rest)
//   node bench/run.ts --observability [--traces 100000] [--generate] [--senders 4] [--requests 30] [--warm-up 3]
//                     [--postgres …] [--json out.json] [--check]
//
// The targets are in bench/targets.ts, one round of measurements in bench/measure.ts, the tables and goals in
// bench/report.ts, the soak in bench/soak.ts, --sustained in bench/sustained.ts, the peers (LiteLLM, Portkey; --peers) in bench/peers.ts; --observability
// (traces ingested, then the trace and observation reads timed) hands over to bench/observability.ts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { median } from './load.ts';
import { jsonCheck, measure, streamCheck, subject, warmUp, type Context, type Loads, type Subject } from './measure.ts';
import { startPeers, type StartedPeers } from './peers.ts';
import {
  otherLoad,
  parseEnvAssignments,
  pin,
  placement,
  ServerProcess,
  startSettings,
  targetCpus,
  type Placement,
} from './processes.ts';
import {
  detailTable,
  mainTable,
  peersTable,
  roundLine,
  summarise,
  verdicts,
  verdictTable,
  type Row,
  type Summary,
} from './report.ts';
import { runObservability } from './observability.ts';
import { runSoak } from './soak.ts';
import { floodTable, holTable, scenarioNotes } from './sustained-scenarios.ts';
import {
  publishedTable,
  runSustained,
  SUSTAINED_UPSTREAM_DELAY_MS,
  sustainedNotes,
  sustainedTable,
  type SustainedOptions,
  type SustainedRow,
} from './sustained.ts';
import {
  DEFAULT_TARGETS,
  redact,
  startTargets,
  STRATEGY_TARGETS,
  targetsNamed,
  type Backends,
  type StartedTargets,
} from './targets.ts';

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '3' },
    /** Default 2, and 10 with --sustained. */
    'latency-duration': { type: 'string' },
    'ttfb-duration': { type: 'string', default: '2' },
    connections: { type: 'string', default: '32' },
    'high-connections': { type: 'string', default: '128' },
    rate: { type: 'string' },
    'no-pin': { type: 'boolean', default: false },
    targets: { type: 'string', default: DEFAULT_TARGETS.join(',') },
    strategies: { type: 'boolean', default: false },
    deployments: { type: 'string', default: '1' },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    redis: { type: 'string', default: 'redis://127.0.0.1:6379' },
    peers: { type: 'boolean', default: false },
    profile: { type: 'string' },
    json: { type: 'string' },
    check: { type: 'boolean', default: false },
    'no-thresholds': { type: 'boolean', default: false },
    soak: { type: 'string' },
    'soak-target': { type: 'string', default: 'governed' },
    'soak-block': { type: 'string', default: '100000' },
    'node-flags': { type: 'string' },
    'node-env': { type: 'string' },
    observability: { type: 'boolean', default: false },
    traces: { type: 'string', default: '100000' },
    generate: { type: 'boolean', default: false },
    senders: { type: 'string', default: '4' },
    requests: { type: 'string', default: '30' },
    'warm-up': { type: 'string', default: '3' },
    sustained: { type: 'boolean', default: false },
    'step-duration': { type: 'string', default: '5' },
    'start-rate': { type: 'string', default: '200' },
    'max-rate': { type: 'string', default: '50000' },
    /** --sustained: true runs only the scenarios, false (--no-scenarios) only the ramp; both when not given. */
    scenarios: { type: 'boolean' },
    'hol-rate': { type: 'string', default: '200' },
    'hol-duration': { type: 'string', default: '10' },
    'flood-rate': { type: 'string', default: '2000' },
  },
  allowNegative: true,
});

function positive(name: string, value: string | undefined, integer = false): number {
  const n = Number(value);
  if (!(n > 0) || (integer && !Number.isInteger(n)))
    throw new Error(`--${name} takes a positive ${integer ? 'whole ' : ''}number`);
  return n;
}

const ROUNDS = positive('rounds', opts.rounds, true);
const LOADS: Loads = {
  duration: positive('duration', opts.duration),
  connections: positive('connections', opts.connections, true),
  highConnections: positive('high-connections', opts['high-connections'], true),
  latencyDuration: positive('latency-duration', opts['latency-duration'] ?? (opts.sustained ? '10' : '2')),
  ttfbDuration: positive('ttfb-duration', opts['ttfb-duration']),
  rate: opts.rate ? positive('rate', opts.rate) : undefined,
};
const BACKENDS: Backends = {
  postgres: opts.postgres,
  redis: opts.redis,
  deployments: positive('deployments', opts.deployments, true),
  nodeFlags: (opts['node-flags'] ?? startSettings().flags).split(' ').filter(Boolean),
  nodeEnv: parseEnvAssignments(opts['node-env'] ?? startSettings().env),
};

/** Counted before this process is pinned (pinning narrows availableParallelism to one). */
const CORES = availableParallelism();

function machine(place: Placement): string {
  const cores = CORES;
  return `node ${process.version}, ${cores} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${place.description}`;
}

/** Starts the fake upstream (each answer `delayMs` late) and pins this process and it. */
async function startUpstream(place: Placement, delayMs = 0): Promise<ServerProcess> {
  const upstream = await ServerProcess.start('upstream', [], { SVC_BENCH_UPSTREAM_DELAY_MS: String(delayMs) });
  if (place.targetCpu) {
    const ok = pin(process.pid, place.loadCpu) && pin(upstream.pid, place.upstreamCpu);
    if (!ok) place.description = 'not pinned (taskset unavailable or refused)';
  }
  return upstream;
}

async function soak(place: Placement): Promise<void> {
  const upstream = await startUpstream(place);
  try {
    const met = await runSoak({
      requests: positive('soak', opts.soak, true),
      block: positive('soak-block', opts['soak-block'], true),
      target: opts['soak-target'],
      connections: LOADS.connections,
      backends: BACKENDS,
      upstream,
      place,
      cores: CORES,
      machine: () => machine(place),
    });
    process.exitCode = opts.check && !met ? 1 : 0;
  } finally {
    await upstream.stop();
  }
}

/** Everything a run measures, started and pinned. */
interface Setup {
  upstream: ServerProcess;
  /** The upstream measured alone, as the `direct` row. */
  direct: Subject;
  started: StartedTargets;
  peers?: StartedPeers;
  rows: Row[];
  /** The rows that can be measured, in table order. */
  subjects: Subject[];
}

async function setUp(place: Placement, upstreamDelayMs = 0): Promise<Setup> {
  const upstream = await startUpstream(place, upstreamDelayMs);
  const specs = targetsNamed([
    ...opts.targets.split(',').filter(Boolean),
    ...(opts.strategies ? STRATEGY_TARGETS : []),
  ]);
  const started = await startTargets(specs, upstream.baseUrl, BACKENDS);
  const peers = opts.peers ? await startPeers(upstream.baseUrl, place.targetCpu, BACKENDS.postgres) : undefined;
  const direct = subject('direct', upstream);
  const rows: Row[] = [{ name: 'direct', description: 'the fake upstream alone, no proxy', goals: {}, rounds: [] }];
  const subjects: Subject[] = [];
  for (const t of started.targets) {
    rows.push({
      name: t.spec.name,
      description: t.spec.description,
      goals: t.spec.goals,
      rounds: [],
      unavailable: t.unavailable,
    });
    if (!t.proc) continue;
    const cpus = targetCpus(place, CORES, t.spec.workers ?? 1);
    if (cpus.list && !pin(t.proc.pid, cpus.list)) place.description = 'not pinned (taskset unavailable or refused)';
    if (cpus.shared)
      rows.at(-1)!.description += ` (pinned to CPUs ${cpus.list}, shared with the load generator and upstream)`;
    subjects.push(subject(t.spec.name, t.proc));
  }
  for (const p of peers?.peers ?? []) {
    rows.push({ name: p.name, description: p.description, goals: {}, rounds: [], unavailable: p.unavailable });
    if (p.proc) subjects.push(subject(p.name, p.proc, p.headers));
  }
  return { upstream, direct, started, peers, rows, subjects };
}

/**
 * One JSON and one streamed request through every subject. One that fails is marked unavailable and dropped, but a
 * peer that answers JSON and fails streamed requests is measured without its first byte.
 */
async function sanityChecks(setup: Setup, rowOf: (s: Subject) => Row): Promise<void> {
  const peerNames = new Set(setup.peers?.peers.map((p) => p.name));
  for (const s of [...setup.subjects]) {
    try {
      await jsonCheck(s);
      await streamCheck(s);
    } catch (err) {
      const message = (err as Error).message.slice(0, 300);
      if (peerNames.has(s.name) && !message.startsWith(`${s.name}: chat completion failed`)) {
        s.streams = false;
        setup.peers!.notes.push(`${message}; measured without its first byte`);
        continue;
      }
      rowOf(s).unavailable = `failed its sanity check: ${message}`;
      setup.subjects.splice(setup.subjects.indexOf(s), 1);
    }
  }
}

/** The machine, other load, the stores, then `loads`, what the mode runs. */
async function printHeader(place: Placement, ours: number[], loads: string): Promise<void> {
  console.log(`svc bench: ${machine(place)}`);
  const busy = await otherLoad(ours, CORES);
  if (busy > 0.1)
    console.log(`NOTE: other processes are using ${busy.toFixed(2)} cores as the run starts; expect noise.`);
  console.log(
    `stores: embedded (PGlite, a temporary directory per target); PostgreSQL ${redact(BACKENDS.postgres)} ` +
      `(a database per target, dropped after); Redis counters at ${redact(BACKENDS.redis)}` +
      (BACKENDS.deployments > 1 ? `; ${BACKENDS.deployments} deployments in the bench group` : ''),
  );
  console.log(`${loads}\n`);
}

async function observability(): Promise<void> {
  const result = await runObservability({
    traces: positive('traces', opts.traces, true),
    generate: opts.generate,
    senders: positive('senders', opts.senders, true),
    requests: positive('requests', opts.requests, true),
    warmUp: positive('warm-up', opts['warm-up'], true),
    postgres: opts.postgres,
    nodeFlags: BACKENDS.nodeFlags,
    nodeEnv: BACKENDS.nodeEnv,
    log: (line) => console.log(line),
  });
  if (opts.json) writeFileSync(opts.json, JSON.stringify(result, null, 2));
  if (!opts.check) return;
  const missed = result.verdicts.filter((v) => !v.met);
  if (missed.length === 0) console.log('\ncheck passed: every goal met');
  else {
    console.log(`\ncheck FAILED: ${missed.length} goal(s) missed:`);
    for (const v of missed) console.log(`  ${v.target}: ${v.what} ${v.value}, goal ${v.goal}`);
    process.exitCode = 1;
  }
}

/** --sustained: the targets in front of an upstream answering in 20 ms, each measured by bench/sustained.ts. */
async function sustained(place: Placement): Promise<void> {
  const options: SustainedOptions = {
    startRate: positive('start-rate', opts['start-rate']),
    maxRate: positive('max-rate', opts['max-rate']),
    stepSeconds: positive('step-duration', opts['step-duration']),
    latencySeconds: LOADS.latencyDuration,
    ramp: opts.scenarios !== true,
    scenarios:
      opts.scenarios === false
        ? undefined
        : {
            rate: positive('hol-rate', opts['hol-rate']),
            seconds: positive('hol-duration', opts['hol-duration']),
            floodRate: positive('flood-rate', opts['flood-rate']),
          },
  };
  const sc = options.scenarios;
  if (options.maxRate < options.startRate) throw new Error('--max-rate is below --start-rate');
  const setup = await setUp(place, SUSTAINED_UPSTREAM_DELAY_MS);
  const { upstream, direct, subjects, rows } = setup;
  const startedAt = performance.now();
  let result: SustainedRow[];
  const date = `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  try {
    await printHeader(
      place,
      [process.pid, upstream.pid, ...subjects.map((s) => s.proc.pid)],
      `${date}; --sustained: upstream answers after ${SUSTAINED_UPSTREAM_DELAY_MS} ms; per target: ` +
        (options.ramp
          ? `${options.latencySeconds} s of sequential requests through it and as many straight to the upstream, ` +
            `by turns, then an open-loop ramp from ${options.startRate} req/s, x1.25 per ${options.stepSeconds} s ` +
            `step, to p99 >= 1 s or >= 0.1 % errors (at most ${options.maxRate} req/s)`
          : '') +
        (options.ramp && sc ? '; then ' : '') +
        (sc
          ? `${sc.rate} small req/s for ${sc.seconds} s alone, then beside a 4 MiB prompt every 100 ms; ` +
            `alone again, then beside ${sc.floodRate} wrong-key req/s`
          : ''),
    );
    await sanityChecks(setup, (s) => rows.find((r) => r.name === s.name)!);
    for (const s of subjects) await warmUp(s, LOADS.connections);
    result = await runSustained({
      direct,
      subjects,
      rows,
      options,
      cores: CORES,
      ourPids: () => [process.pid, upstream.pid, ...subjects.map((s) => s.proc.pid)],
      log: (line) => console.log(line),
    });
  } finally {
    await Promise.all([setup.started.release(), setup.peers?.release(), upstream.stop()]);
  }
  if (options.ramp) {
    console.log(`\n${sustainedTable(result)}\n`);
    for (const line of sustainedNotes(result, options)) console.log(line);
  }
  if (sc) {
    const where = `${date}, ${machine(place)}`;
    console.log(`\nhead-of-line blocking by 4 MiB prompts (${where}):\n\n${holTable(result)}\n`);
    console.log(`invalid-key flood (${where}):\n\n${floodTable(result)}\n`);
    for (const line of scenarioNotes(result, sc)) console.log(line);
  }
  for (const note of setup.peers?.notes ?? []) console.log(`  note: ${note}`);
  console.log(`  where: ${place.description}`);
  if (options.ramp)
    console.log(
      '\npublished, not measured here (4 Graviton cores, a mock answering in 20 ms, the highest rate with ' +
        `p99 < 1 s and < 0.1 % errors):\n\n${publishedTable()}\n`,
    );
  console.log(`bench time ${((performance.now() - startedAt) / 1000).toFixed(0)} s`);
  if (opts.json)
    writeFileSync(
      opts.json,
      JSON.stringify(
        {
          node: process.version,
          machine: machine(place),
          upstreamDelayMs: SUSTAINED_UPSTREAM_DELAY_MS,
          options,
          rows: result,
        },
        null,
        2,
      ),
    );
}

async function main(): Promise<void> {
  if (opts.observability) return observability();
  const place = placement(CORES, !opts['no-pin']);
  if (opts.soak) return soak(place);
  if (opts.sustained) return sustained(place);
  const setup = await setUp(place);
  const { upstream, direct, subjects, rows } = setup;
  const rowOf = (s: Subject) => rows.find((r) => r.name === s.name)!;
  const ctx: Context = {
    loads: LOADS,
    upstream,
    cores: CORES,
    ourPids: () => [process.pid, upstream.pid, ...subjects.map((s) => s.proc.pid)],
  };
  const profileDir = join(tmpdir(), `svc-bench-profiles-${process.pid}`);
  const profiled = new Set((opts.profile ?? '').split(',').filter(Boolean));
  const profiles = [
    ['upstream', upstream] as const,
    ...setup.started.targets.map((t) => [t.spec.name, t.proc] as const),
  ].filter((p): p is readonly [string, ServerProcess] => p[1] !== undefined && profiled.has(p[0]));
  const startedAt = performance.now();
  try {
    for (const s of [direct, ...subjects]) rowOf(s).rssStart = await s.proc.rss();
    await printHeader(
      place,
      ctx.ourPids(),
      `${ROUNDS} rounds; each round and target: ${LOADS.duration} s at ${LOADS.connections} connections` +
        `${LOADS.rate ? ` (capped at ${LOADS.rate} req/s)` : ''}, ${LOADS.duration} s at ${LOADS.highConnections}, ` +
        `${LOADS.latencyDuration} s of sequential requests on 1 connection, ${LOADS.ttfbDuration} s of sequential ` +
        `streamed requests on 1 connection`,
    );
    await sanityChecks(setup, rowOf);
    for (const s of [...subjects, direct]) await warmUp(s, LOADS.connections);
    if (profiles.length > 0) {
      mkdirSync(profileDir, { recursive: true });
      for (const [, p] of profiles) await p.startProfile();
    }
    for (let round = 1; round <= ROUNDS; round++) {
      // Interleaved, the order reversed every other round so no target always runs first.
      for (const s of [direct, ...(round % 2 === 1 ? subjects : [...subjects].reverse())]) {
        const r = await measure(s, ctx);
        rowOf(s).rounds.push(r);
        console.log(roundLine(round, ROUNDS, s.name, r, LOADS.connections, LOADS.highConnections));
      }
    }
    for (const [name, p] of profiles) await p.stopProfile(join(profileDir, `${name}.cpuprofile`));
    for (const s of [direct, ...subjects]) {
      rowOf(s).rssEnd = await s.proc.rss();
      rowOf(s).memoryEnd = await s.proc.memory();
    }
  } finally {
    await Promise.all([setup.started.release(), setup.peers?.release(), upstream.stop()]);
  }
  report(rows, setup.peers?.notes ?? [], (performance.now() - startedAt) / 1000, place);
  if (profiles.length > 0) {
    console.log('CPU profiles (measured rounds only, after warm-up):');
    for (const [name] of profiles)
      console.log(`  node bench/profile-summary.ts ${join(profileDir, `${name}.cpuprofile`)}`);
  }
  if (!opts['no-thresholds']) {
    for (const script of ['anthropic-worker-threshold.ts', 'bedrock-sigv4-hash.ts']) {
      console.log(`\nworker-thread threshold: node bench/${script}`);
      execFileSync(process.execPath, [fileURLToPath(new URL(`./${script}`, import.meta.url))], { stdio: 'inherit' });
    }
  }
}

function report(rows: Row[], peerNotes: string[], elapsed: number, place: Placement): void {
  const floor = rows.find((r) => r.name === 'floor')!;
  const sums = new Map<string, Summary>();
  for (const row of rows) if (!row.unavailable && row.rounds.length > 0) sums.set(row.name, summarise(row, floor));
  const c = LOADS.connections;
  console.log(`\nmedians of ${ROUNDS} rounds; "x floor" and "added" are per round against the floor, then the median`);
  console.log(`\n${mainTable(rows, sums, c, LOADS.highConnections)}\n`);
  console.log(`${detailTable(rows, sums, c)}\n`);
  for (const row of rows) console.log(`  ${row.name.padEnd(18)} ${row.description}`);
  console.log(
    '  loop: event-loop delay inside the server (perf_hooks.monitorEventLoopDelay, 1 ms timer) during each load; ' +
      'p99 is the median of the rounds, max the largest\n  GC: share of the wall time in GC pauses during the ' +
      `${c}-connection load, and the longest pause; V8 heap (used / total) and peak RSS after the last round\n  busy after load: how long ` +
      `the server still worked after the ${c}-connection load (trace writes; a peer's backlog), counted in its CPU/req`,
  );
  console.log(`  where: ${place.description}\n`);
  if (opts.peers) {
    const shown = rows.filter((r) => r.name !== 'direct');
    console.log(`peers, same run, same fake upstream and loads:\n\n${peersTable(shown, sums, c)}\n`);
    for (const note of peerNotes) console.log(`  note: ${note}`);
    console.log('');
  }
  const vs = rows.flatMap((r) => verdicts(r, sums.get(r.name)));
  console.log(`${verdictTable(vs)}\n`);
  const failed = rows.reduce((n, r) => n + (sums.get(r.name)?.bad ?? 0), 0);
  if (failed > 0) console.log(`WARNING: ${failed} requests failed or had an unexpected body; figures are suspect.`);
  const floorSum = sums.get('floor');
  if (!LOADS.rate && floorSum && median(floor.rounds.map((r) => r.cpuCores)) < 0.85)
    console.log(
      'NOTE: the floor did not keep its core busy at full load; the load generator or upstream may be the bottleneck.',
    );
  const measured = rows.flatMap((r) => r.rounds);
  const noisy = measured.filter((r) => r.otherLoad > 0.1).length;
  if (noisy > 0)
    console.log(
      `NOTE: other processes used more than 0.1 cores during ${noisy} of ${measured.length} measurements; expect noise.`,
    );
  console.log(`bench time ${elapsed.toFixed(0)} s`);
  const missed = vs.filter((v) => !v.met);
  if (opts.json)
    writeFileSync(
      opts.json,
      JSON.stringify(
        {
          node: process.version,
          placement: place.description,
          rounds: ROUNDS,
          loads: LOADS,
          rows,
          summaries: Object.fromEntries(sums),
          verdicts: vs,
        },
        null,
        2,
      ),
    );
  if (opts.check) {
    if (missed.length > 0) {
      console.log(`\ncheck FAILED: ${missed.length} goal(s) missed:`);
      for (const v of missed)
        console.log(`  ${v.target}: ${v.reason ? `unavailable: ${v.reason}` : `${v.what} ${v.value}, goal ${v.goal}`}`);
      process.exitCode = 1;
    } else console.log('\ncheck passed: every goal met');
  }
}

main().then(
  () => process.exit(),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
