// `npm run bench -- --sustained`: the method other gateways publish their figures by, run on this machine against
// the same fake upstream, now answering every request 20 ms after reading it. For each target (bench/run.ts starts,
// pins and sanity-checks them as for the other modes, and warms them up):
//   1. Added latency at one connection: non-streamed requests one after another, through the target and straight to
//      the upstream by turns (bench/load.ts timedAlternating), `--latency-duration` seconds of each; the target's
//      p50 and p99 minus the upstream's. The server's event-loop delay over that run (p99 and max) comes from inside
//      the process, as in the other modes.
//   2. Highest sustained rate: an open-loop ramp (bench/open-loop.ts) from `--start-rate` req/s, ×1.25 a step, each
//      step `--step-duration` seconds, up to the first step whose p99 (from each request's scheduled send time) is
//      1 s or more or whose errors (non-2xx, connection failures, no answer within 5 s) are 0.1 % of the requests
//      or more; the sustained rate is the last step that passed (or `--max-rate`, where the ramp stops anyway).
//      The server's CPU per request at that rate includes the trace writes it left behind (settled after each step).
//   3. The scenarios (bench/sustained-scenarios.ts): small requests at a fixed rate alone and beside 4 MiB prompts,
//      then alone and beside a wrong-key flood. `--scenarios` runs only them, `--no-scenarios` only 1 and 2.
import { percentile, timedAlternating } from './load.ts';
import { JSON_BODY, type Subject } from './measure.ts';
import { OpenLoop, type OpenLoopResult } from './open-loop.ts';
import { otherLoadSince } from './processes.ts';
import type { ObserveReply } from './server-process.ts';
import { runScenarios, type ScenarioOptions, type ScenarioResults } from './sustained-scenarios.ts';
import { f, table } from './report.ts';

/** What the upstream's answers wait, ms; the published figures were taken against a mock answering in 20 ms. */
export const SUSTAINED_UPSTREAM_DELAY_MS = 20;
const RATE_FACTOR = 1.25;
const P99_LIMIT_MS = 1000;
const ERROR_LIMIT = 0.001;
const TIMEOUT_MS = 5000;

export interface SustainedOptions {
  startRate: number;
  maxRate: number;
  stepSeconds: number;
  /** Seconds of sequential requests through the target, and as many straight to the upstream, taking turns. */
  latencySeconds: number;
  /** Whether to run the one-connection run and the ramp. */
  ramp: boolean;
  /** The scenarios' settings; not run when undefined. */
  scenarios?: ScenarioOptions;
}

export interface Step {
  /** req/s asked for (the schedule). */
  rate: number;
  sent: number;
  ok: number;
  errors: number;
  non2xx: number;
  failed: number;
  timeouts: number;
  /** ms from the scheduled send time. */
  p50: number;
  p99: number;
  /** Server CPU per ok answer, µs, and in cores over the step. */
  cpuPerReq: number;
  cpuCores: number;
  /** The load generator's (this process's) CPU over the step, in cores. */
  loadCores: number;
  /** How late the client sent, ms (already inside p50/p99). */
  sendLagP99: number;
  sendLagMax: number;
  /** Event-loop delay inside the server over the step, ms (our own servers only). */
  loopP99?: number;
  loopMax?: number;
  /** CPU used by processes outside the bench over the step, in cores (noise). */
  otherLoad: number;
  passed: boolean;
  /** Why the step failed. */
  why?: string;
}

export interface SustainedRow {
  name: string;
  description: string;
  unavailable?: string;
  /** One connection, ms: through the target, straight to the upstream, and the difference. */
  p50One?: number;
  p99One?: number;
  directP50?: number;
  directP99?: number;
  addedP50?: number;
  addedP99?: number;
  /** Failed requests in the one-connection run (either side). */
  bad1c?: number;
  /** Event-loop delay inside the server over the one-connection run, ms (our own servers only). */
  loopP99?: number;
  loopMax?: number;
  steps: Step[];
  /** The last step that passed. */
  sustained?: Step;
  /** What ended the ramp. */
  stoppedBy?: string;
  rssStart?: number;
  rssEnd?: number;
  scenarios?: ScenarioResults;
}

export interface SustainedInput {
  direct: Subject;
  /** The measurable targets and peers, in table order. */
  subjects: Subject[];
  /** Every row in table order, the unavailable ones with their reason. */
  rows: { name: string; description: string; unavailable?: string }[];
  options: SustainedOptions;
  cores: number;
  /** The bench's own processes (for the noise figure). */
  ourPids(): number[];
  log(line: string): void;
}

/** The rates of the ramp: `start`, ×1.25 a step (whole req/s), and `max` as the last. */
export function rampRates(start: number, max: number): number[] {
  const rates: number[] = [];
  for (let r = start; r < max; r = Math.round(r * RATE_FACTOR)) rates.push(r);
  rates.push(max);
  return rates;
}

function stepOf(r: OpenLoopResult, cpu: number, otherLoad: number, inside: ObserveReply | undefined): Step {
  const errors = r.non2xx + r.failed + r.timeouts;
  const p99 = percentile(r.latency, 99);
  const whys = [
    ...(!(p99 < P99_LIMIT_MS) ? [`p99 ${f(p99, 0)} ms`] : []),
    ...(errors / r.sent >= ERROR_LIMIT
      ? [`${f((errors / r.sent) * 100, 2)} % errors (${r.timeouts} timeouts, ${r.non2xx} non-2xx, ${r.failed} failed)`]
      : []),
  ];
  return {
    rate: r.rate,
    sent: r.sent,
    ok: r.ok,
    errors,
    non2xx: r.non2xx,
    failed: r.failed,
    timeouts: r.timeouts,
    p50: percentile(r.latency, 50),
    p99,
    cpuPerReq: cpu / r.ok,
    cpuCores: cpu / (r.seconds * 1e6),
    loadCores: r.loadCpu / (r.seconds * 1e6),
    sendLagP99: r.sendLagP99,
    sendLagMax: r.sendLagMax,
    loopP99: inside?.loopP99,
    loopMax: inside?.loopMax,
    otherLoad,
    passed: whys.length === 0,
    why: whys.length > 0 ? whys.join(', ') : undefined,
  };
}

function stepLine(name: string, s: Step): string {
  return (
    `${name.padEnd(18)} ${String(s.rate).padStart(6)} req/s  ${String(s.ok).padStart(6)} ok  ` +
    `p50 ${f(s.p50, 1)} p99 ${f(s.p99, 1)} ms  ${s.errors} errors  cpu ${f(s.cpuPerReq, 0)} µs/req ` +
    `(${f(s.cpuCores * 100, 0)}% of a core)  load gen ${f(s.loadCores * 100, 0)}%  send lag p99 ${f(s.sendLagP99, 1)} ms  other load ${f(s.otherLoad, 2)}` +
    (s.loopMax === undefined ? '' : `  loop p99 ${f(s.loopP99, 1)} max ${f(s.loopMax, 1)} ms`) +
    (s.passed ? '' : `  STOP: ${s.why}`)
  );
}

async function measureOne(s: Subject, input: SustainedInput) {
  const { options: o, log } = input;
  const row: Partial<SustainedRow> & { steps: Step[] } = { steps: [] };
  row.rssStart = await s.proc.rss();
  if (o.ramp) await rampOne(s, input, row);
  if (o.scenarios) row.scenarios = await runScenarios(s, o.scenarios, log);
  row.rssEnd = await s.proc.rss();
  return row;
}

/** The one-connection run and the ramp. */
async function rampOne(s: Subject, input: SustainedInput, row: Partial<SustainedRow> & { steps: Step[] }) {
  const { direct, options: o, log } = input;
  await s.proc.observeStart();
  const [through, straight] = await timedAlternating(s.target, direct.target, JSON_BODY, o.latencySeconds, '}');
  const inside = await s.proc.observeStop();
  await s.proc.settle();
  row.p50One = percentile(through.total, 50);
  row.p99One = percentile(through.total, 99);
  row.directP50 = percentile(straight.total, 50);
  row.directP99 = percentile(straight.total, 99);
  row.addedP50 = row.p50One - row.directP50;
  row.addedP99 = row.p99One - row.directP99;
  row.bad1c = through.bad + straight.bad;
  row.loopP99 = inside?.loopP99;
  row.loopMax = inside?.loopMax;
  log(
    `${s.name.padEnd(18)} 1 connection: p50 ${f(row.p50One, 3)} p99 ${f(row.p99One, 3)} ms (${through.count} requests), ` +
      `upstream alone p50 ${f(row.directP50, 3)} p99 ${f(row.directP99, 3)} ms (${straight.count})` +
      (inside ? `, loop p99 ${f(inside.loopP99, 1)} max ${f(inside.loopMax, 1)} ms` : '') +
      (row.bad1c > 0 ? `, ${row.bad1c} FAILED` : ''),
  );
  const loop = new OpenLoop(s.target, JSON_BODY);
  try {
    for (const rate of rampRates(o.startRate, o.maxRate)) {
      const other = otherLoadSince(input.ourPids, input.cores);
      const c0 = await s.proc.cpu();
      await s.proc.observeStart();
      const r = await loop.step({ rate, seconds: o.stepSeconds, timeoutMs: TIMEOUT_MS });
      const inside = await s.proc.observeStop();
      // Trace writes (and a peer's backlog) belong to the step's requests, and must not spill into the next step.
      await s.proc.settle();
      const step = stepOf(r, (await s.proc.cpu()) - c0, other(), inside);
      row.steps.push(step);
      log(stepLine(s.name, step));
      if (!step.passed) {
        row.stoppedBy = `${step.why} at ${rate} req/s`;
        break;
      }
      row.sustained = step;
    }
  } finally {
    await loop.close();
  }
  row.stoppedBy ??= `--max-rate ${o.maxRate} reached`;
}

export async function runSustained(input: SustainedInput): Promise<SustainedRow[]> {
  const measured = new Map<string, Awaited<ReturnType<typeof measureOne>>>();
  for (const s of input.subjects) measured.set(s.name, await measureOne(s, input));
  return input.rows
    .filter((r) => r.name !== input.direct.name)
    .map((r) => ({
      name: r.name,
      description: r.description,
      ...(measured.get(r.name) ?? { steps: [], unavailable: r.unavailable ?? 'not measured' }),
    }));
}

const signed = (v: number | undefined, digits: number) =>
  v === undefined || Number.isNaN(v) ? 'n/a' : (v >= 0 ? '+' : '') + v.toFixed(digits);
const mb = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : (bytes / 1048576).toFixed(0));
const thousands = (n: number) => n.toLocaleString('en');

export function sustainedTable(rows: SustainedRow[]): string {
  const lines = [
    [
      'target',
      'added p50 1c ms',
      'added p99 1c ms',
      'loop p99/max 1c ms',
      'sustained req/s',
      'p99 ms at it',
      'errors at it',
      'CPU µs/req at it',
      'RSS MB start>end',
      'ramp stopped by',
    ],
  ];
  for (const r of rows) {
    if (r.unavailable) {
      lines.push([r.name, `unavailable: ${r.unavailable}`]);
      continue;
    }
    const s = r.sustained;
    lines.push([
      r.name,
      signed(r.addedP50, 3),
      signed(r.addedP99, 3),
      `${f(r.loopP99, 1)} / ${f(r.loopMax, 1)}`,
      s ? thousands(s.rate) : `< ${thousands(r.steps[0]?.rate ?? 0)}`,
      s ? f(s.p99, 1) : 'n/a',
      s ? `${s.errors} of ${thousands(s.sent)}` : 'n/a',
      s ? f(s.cpuPerReq, 0) : 'n/a',
      `${mb(r.rssStart)} > ${mb(r.rssEnd)}`,
      r.stoppedBy ?? '',
    ]);
  }
  return table(lines);
}

/** Other gateways' own published figures under the same method: context only, nothing here measured them. */
export const PUBLISHED = [
  ['LiteLLM Rust gateway', '+107 µs', 35_172],
  ['agentgateway', '+186 µs', 28_923],
  ['Helicone', '+444 µs', 9_859],
  ['Bifrost', '+939 µs', 4_975],
  ['Kong', '+1.28 ms', 14_351],
  ['Portkey', '+3.26 ms', 862],
  ['LiteLLM (Python)', '+8.0 ms', 608],
] as const;

export function publishedTable(): string {
  return table([
    ['gateway', 'added latency', 'sustained req/s'],
    ...PUBLISHED.map(([n, a, r]) => [n, a, thousands(r)]),
  ]);
}

export function sustainedNotes(rows: SustainedRow[], o: SustainedOptions): string[] {
  const notes = [
    `  added p50/p99 1c: ${o.latencySeconds} s of sequential non-streamed requests through the target and as many ` +
      'straight to the upstream, by turns on one connection each; the target minus the upstream. The upstream ' +
      `alone (its ${SUSTAINED_UPSTREAM_DELAY_MS} ms included): ${rows
        .filter((r) => r.directP50 !== undefined)
        .map((r) => `p50 ${f(r.directP50, 3)} / p99 ${f(r.directP99, 3)} ms beside ${r.name}`)
        .join(', ')}`,
    '  loop: event-loop delay inside the server (perf_hooks.monitorEventLoopDelay, 1 ms timer) over the 1-connection ' +
      'run; n/a for a peer',
    `  sustained: open-loop ramp from ${o.startRate} req/s, x${RATE_FACTOR} a step of ${o.stepSeconds} s, latency ` +
      `from each request's scheduled send time; the last step with p99 < ${P99_LIMIT_MS} ms and errors ` +
      `(non-2xx, connection failures, no answer within ${TIMEOUT_MS / 1000} s) < ${ERROR_LIMIT * 100} %`,
    '  CPU µs/req at it: the server process CPU (user + system, a peer with its children) over that step and the ' +
      'trace writes it left, per answer',
  ];
  const lagging = rows.flatMap((r) => r.steps.filter((s) => s.sendLagP99 > 5).map((s) => `${r.name} at ${s.rate}`));
  const noisy = rows.flatMap((r) => r.steps.filter((s) => s.otherLoad > 0.1));
  if (noisy.length > 0)
    notes.push(
      `  NOTE: other processes used more than 0.1 cores during ${noisy.length} of ` +
        `${rows.reduce((n, r) => n + r.steps.length, 0)} steps; expect noise`,
    );
  if (lagging.length > 0)
    notes.push(
      `  NOTE: the load generator sent more than 5 ms late (p99) at: ${lagging.join(', ')}; there the client, not ` +
        'the target, may be the limit',
    );
  return notes;
}
