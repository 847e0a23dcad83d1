// The two scenarios of `npm run bench -- --sustained` (after the ramp of bench/sustained.ts, or alone with
// `--scenarios`), each against the same upstream answering in 20 ms, with the open-loop client of bench/open-loop.ts.
// Small valid chat requests go out at a fixed rate (`--hol-rate`, default 200 req/s) for `--hol-duration` seconds
// (default 10), first alone, then beside a second open-loop sender on a connection pool of its own:
//   1. Head-of-line blocking: a chat request whose one user message is 4 MiB of text, every 100 ms. The issue's
//      target: the small requests' p99 rises by at most 1 ms. Also how many large requests got a 2xx and their p50.
//   2. Invalid-key flood: requests with a wrong API key (`Bearer sk-wrong-…`) at `--flood-rate` (default 2,000
//      req/s). The valid requests' p99 alone and during the flood, the 401s a second the flood got (and any other
//      answer), and the server's extra CPU per flood request.
// Each phase also gives the server's event-loop delay (p99, max) from inside the process, as the ramp's steps do, and
// its CPU over the phase and the trace writes it left (settled after each phase).
import { request } from 'undici';
import { BENCH_GROUP } from './gateway-target.ts';
import { percentile } from './load.ts';
import type { Subject } from './measure.ts';
import { JSON_BODY } from './measure.ts';
import { OpenLoop, type OpenLoopResult } from './open-loop.ts';
import { f, table } from './report.ts';
import type { ObserveReply } from './server-process.ts';

/** The text of the large prompt's one user message, bytes (4 MiB). */
export const LARGE_PROMPT_BYTES = 4 * 1024 * 1024;
/** The gateway's default `server.max_body_bytes` (the bench's gateway.yaml leaves it at that). */
export const DEFAULT_MAX_BODY_BYTES = 4_718_592;
/** One large prompt every this many ms. */
export const LARGE_EVERY_MS = 100;
/** The issue's target: the large prompts raise the small requests' p99 by at most this many ms. */
export const HOL_P99_TARGET_MS = 1;
/** Not a key the bench gateway knows; the same length as its real one. */
export const WRONG_KEY = 'sk-wrong-0123456789abcdef012345678';
const TIMEOUT_MS = 5000;

export interface ScenarioOptions {
  /** The small valid requests' rate in every phase, req/s. */
  rate: number;
  /** Seconds of each phase. */
  seconds: number;
  /** The wrong-key flood's rate, req/s. */
  floodRate: number;
}

/**
 * A non-streamed chat request to the bench group whose one user message is `textBytes` bytes of plain ASCII prose:
 * no digits and nothing a secrets or card-number guardrail would flag, so it passes every check of the gateway.
 */
export function largeChatBody(textBytes: number): Buffer {
  const sentence = 'The quick brown fox jumps over the lazy dog while the patient gateway reads every word. ';
  const content = sentence.repeat(Math.ceil(textBytes / sentence.length)).slice(0, textBytes);
  return Buffer.from(JSON.stringify({ model: BENCH_GROUP, messages: [{ role: 'user', content }], max_tokens: 64 }));
}

/** The small requests over one phase, ms from their scheduled send times. */
export interface Phase {
  sent: number;
  ok: number;
  /** Non-2xx, failed and unanswered within 5 s. */
  errors: number;
  p50: number;
  p99: number;
  max: number;
  /** How late the client sent the small requests, ms (already inside their latency). */
  sendLagP99: number;
  sendLagMax: number;
  /** Event-loop delay inside the server over the phase, ms (our own servers only). */
  loopP99?: number;
  loopMax?: number;
  /** Server CPU over the phase and the trace writes it left, µs. */
  cpu: number;
  /** The load generator's (this process's) CPU over the phase, in cores. */
  loadCores: number;
}

/** The second sender of a phase (the large prompts, or the flood). */
export interface Sender {
  rate: number;
  sent: number;
  ok: number;
  /** Answers by status code. */
  statuses: Record<number, number>;
  failed: number;
  timeouts: number;
  /** Of the 2xx answers, ms from the scheduled send time. */
  p50: number;
  seconds: number;
}

export interface HolResult {
  alone: Phase;
  withLarge: Phase;
  large: Sender;
  /** The small requests' p99 beside the large prompts minus alone, ms, and whether it is within the target. */
  p99Change: number;
  met: boolean;
}

export interface FloodResult {
  alone: Phase;
  during: Phase;
  flood: Sender;
  p99Change: number;
  /** Server CPU per flood request, µs: the phase's CPU minus the phase alone's, over the flood's requests. */
  cpuPerFlood: number;
}

export interface ScenarioResults {
  hol: HolResult;
  flood: FloodResult;
}

/** `after`'s p99 minus `before`'s, ms, and whether it is at most `limitMs` (not when either is missing). */
export function p99Change(before: { p99: number }, after: { p99: number }, limitMs: number) {
  const change = after.p99 - before.p99;
  return { change, met: change <= limitMs };
}

/** Server CPU per request of a second sender: `cpuWith` less `cpuAlone` scaled to the same length, µs. */
export function extraCpuPerRequest(
  cpuAlone: number,
  secondsAlone: number,
  cpuWith: number,
  secondsWith: number,
  requests: number,
): number {
  return requests > 0 ? (cpuWith - (cpuAlone * secondsWith) / secondsAlone) / requests : Number.NaN;
}

/** "401 x 19,990, 200 x 10, 3 failed, 2 timeouts": every outcome of a sender, most frequent first. */
export function outcomes(s: Pick<Sender, 'statuses' | 'failed' | 'timeouts'>): string {
  const parts = Object.entries(s.statuses)
    .sort((a, b) => b[1] - a[1])
    .map(([status, n]) => `${status} x ${n.toLocaleString('en')}`);
  if (s.failed > 0) parts.push(`${s.failed} failed`);
  if (s.timeouts > 0) parts.push(`${s.timeouts} timeouts`);
  return parts.join(', ') || 'none';
}

function phaseOf(r: OpenLoopResult, inside: ObserveReply | undefined, cpu: number): Phase {
  return {
    sent: r.sent,
    ok: r.ok,
    errors: r.non2xx + r.failed + r.timeouts,
    p50: percentile(r.latency, 50),
    p99: percentile(r.latency, 99),
    max: percentile(r.latency, 100),
    sendLagP99: r.sendLagP99,
    sendLagMax: r.sendLagMax,
    loopP99: inside?.loopP99,
    loopMax: inside?.loopMax,
    cpu,
    loadCores: r.loadCpu / (r.seconds * 1e6),
  };
}

function senderOf(r: OpenLoopResult): Sender {
  return {
    rate: r.rate,
    sent: r.sent,
    ok: r.ok,
    statuses: r.statuses,
    failed: r.failed,
    timeouts: r.timeouts,
    p50: percentile(r.latency, 50),
    seconds: r.seconds,
  };
}

/** One phase: the small requests at their rate, and beside them `other` (its own pool) at its rate, if any. */
async function phase(s: Subject, small: OpenLoop, o: ScenarioOptions, other?: { loop: OpenLoop; rate: number }) {
  const c0 = await s.proc.cpu();
  await s.proc.observeStart();
  const [r, r2] = await Promise.all([
    small.step({ rate: o.rate, seconds: o.seconds, timeoutMs: TIMEOUT_MS }),
    other?.loop.step({ rate: other.rate, seconds: o.seconds, timeoutMs: TIMEOUT_MS }),
  ]);
  const inside = await s.proc.observeStop();
  await s.proc.settle();
  return { small: phaseOf(r, inside, (await s.proc.cpu()) - c0), other: r2 && senderOf(r2) };
}

function phaseLine(name: string, what: string, p: Phase): string {
  return (
    `${name.padEnd(18)} ${what.padEnd(22)} ${String(p.ok).padStart(6)} ok  p50 ${f(p.p50, 2)} p99 ${f(p.p99, 2)} ` +
    `max ${f(p.max, 2)} ms  ${p.errors} errors  send lag p99 ${f(p.sendLagP99, 1)} max ${f(p.sendLagMax, 1)} ms  ` +
    `load gen ${f(p.loadCores * 100, 0)}%` +
    (p.loopMax === undefined ? '' : `  loop p99 ${f(p.loopP99, 1)} max ${f(p.loopMax, 1)} ms`)
  );
}

/** One large prompt through the target, before the scenario: says so when it does not get a 200. */
async function checkLarge(s: Subject, body: Buffer, log: (line: string) => void): Promise<void> {
  const res = await request(s.target.url + s.target.path, { method: 'POST', headers: s.target.headers, body });
  const text = await res.body.text();
  if (res.statusCode !== 200)
    log(`${s.name.padEnd(18)} WARNING: the large prompt got ${res.statusCode}: ${text.slice(0, 300)}`);
}

export async function runScenarios(
  s: Subject,
  o: ScenarioOptions,
  log: (line: string) => void,
): Promise<ScenarioResults> {
  const large = largeChatBody(LARGE_PROMPT_BYTES);
  const small = new OpenLoop(s.target, JSON_BODY);
  const bigLoop = new OpenLoop(s.target, large);
  const floodLoop = new OpenLoop(
    { ...s.target, headers: { ...s.target.headers, authorization: `Bearer ${WRONG_KEY}` } },
    JSON_BODY,
  );
  try {
    // Connections opened and code paths warmed before anything counts.
    await checkLarge(s, large, log);
    await small.step({ rate: o.rate, seconds: 1, timeoutMs: TIMEOUT_MS });
    await floodLoop.step({ rate: o.floodRate, seconds: 0.2, timeoutMs: TIMEOUT_MS });
    await s.proc.settle();

    const holAlone = await phase(s, small, o);
    log(phaseLine(s.name, 'alone', holAlone.small));
    const withLarge = await phase(s, small, o, { loop: bigLoop, rate: 1000 / LARGE_EVERY_MS });
    const big = withLarge.other!;
    log(
      `${phaseLine(s.name, '+ 4 MiB every 100 ms', withLarge.small)}  large: ${big.ok} of ${big.sent} ok, ` +
        `p50 ${f(big.p50, 1)} ms (${outcomes(big)})`,
    );
    const hol = p99Change(holAlone.small, withLarge.small, HOL_P99_TARGET_MS);

    const floodAlone = await phase(s, small, o);
    log(phaseLine(s.name, 'alone', floodAlone.small));
    const during = await phase(s, small, o, { loop: floodLoop, rate: o.floodRate });
    const flood = during.other!;
    const cpuPerFlood = extraCpuPerRequest(floodAlone.small.cpu, o.seconds, during.small.cpu, o.seconds, flood.sent);
    log(
      `${phaseLine(s.name, `+ ${o.floodRate} wrong-key req/s`, during.small)}  flood: ${outcomes(flood)}, ` +
        `${f(cpuPerFlood, 0)} µs/req`,
    );
    return {
      hol: { alone: holAlone.small, withLarge: withLarge.small, large: big, p99Change: hol.change, met: hol.met },
      flood: {
        alone: floodAlone.small,
        during: during.small,
        flood,
        p99Change: during.small.p99 - floodAlone.small.p99,
        cpuPerFlood,
      },
    };
  } finally {
    await Promise.all([small.close(), bigLoop.close(), floodLoop.close()]);
  }
}

const signed = (v: number) => (Number.isNaN(v) ? 'n/a' : (v >= 0 ? '+' : '') + v.toFixed(2));
const slash = (a: number | undefined, b: number | undefined) => `${f(a, 1)} / ${f(b, 1)}`;

interface Named {
  name: string;
  unavailable?: string;
  scenarios?: ScenarioResults;
}

export function holTable(rows: Named[]): string {
  const lines = [
    [
      'target',
      'p50/p99/max alone ms',
      'p50/p99/max with large ms',
      'p99 change ms',
      `<= ${HOL_P99_TARGET_MS} ms`,
      'large 2xx of sent',
      'large p50 ms',
      'loop max alone/with ms',
      'send lag p99 alone/with ms',
      'small errors alone/with',
    ],
  ];
  for (const r of rows) {
    const h = r.scenarios?.hol;
    if (!h) {
      lines.push([r.name, `not measured${r.unavailable ? `: ${r.unavailable}` : ''}`]);
      continue;
    }
    const three = (p: Phase) => `${f(p.p50, 2)} / ${f(p.p99, 2)} / ${f(p.max, 2)}`;
    lines.push([
      r.name,
      three(h.alone),
      three(h.withLarge),
      signed(h.p99Change),
      h.met ? 'met' : 'MISSED',
      `${h.large.ok} of ${h.large.sent}`,
      f(h.large.p50, 1),
      slash(h.alone.loopMax, h.withLarge.loopMax),
      slash(h.alone.sendLagP99, h.withLarge.sendLagP99),
      `${h.alone.errors} / ${h.withLarge.errors}`,
    ]);
  }
  return table(lines);
}

export function floodTable(rows: Named[]): string {
  const lines = [
    [
      'target',
      'valid p99 alone ms',
      'valid p99 in flood ms',
      'p99 change ms',
      'flood asked req/s',
      '401/s got',
      'flood answers',
      'server CPU µs/flood req',
      'loop max alone/flood ms',
      'send lag p99 alone/flood ms',
      'valid errors alone/flood',
    ],
  ];
  for (const r of rows) {
    const fl = r.scenarios?.flood;
    if (!fl) {
      lines.push([r.name, `not measured${r.unavailable ? `: ${r.unavailable}` : ''}`]);
      continue;
    }
    lines.push([
      r.name,
      f(fl.alone.p99, 2),
      f(fl.during.p99, 2),
      signed(fl.p99Change),
      fl.flood.rate.toLocaleString('en'),
      ((fl.flood.statuses[401] ?? 0) / fl.flood.seconds).toLocaleString('en', { maximumFractionDigits: 0 }),
      outcomes(fl.flood),
      f(fl.cpuPerFlood, 0),
      slash(fl.alone.loopMax, fl.during.loopMax),
      slash(fl.alone.sendLagP99, fl.during.sendLagP99),
      `${fl.alone.errors} / ${fl.during.errors}`,
    ]);
  }
  return table(lines);
}

export function scenarioNotes(rows: Named[], o: ScenarioOptions): string[] {
  const notes = [
    `  every phase: ${o.seconds} s of small valid chat requests, open-loop at ${o.rate} req/s, latency from each ` +
      "request's scheduled send time; the server's loop delay and CPU over the phase; a phase alone right before each " +
      'phase with a second sender (its own connection pool, also open-loop)',
    `  large: one chat request with a ${LARGE_PROMPT_BYTES / 1048576} MiB user message ` +
      `(${largeChatBody(LARGE_PROMPT_BYTES).length.toLocaleString('en')} bytes of body, the gateway's limit is ` +
      `${DEFAULT_MAX_BODY_BYTES.toLocaleString('en')}) every ${LARGE_EVERY_MS} ms; target: small p99 up by <= ` +
      `${HOL_P99_TARGET_MS} ms`,
    `  flood: Bearer ${WRONG_KEY.slice(0, 9)}… at ${o.floodRate} req/s; server CPU per flood request = (CPU of the ` +
      'flood phase - CPU of the phase alone) / flood requests; the floor checks no key, so its flood is proxied',
    '  send lag: how late the load generator sent the small requests (p99); it is inside their latency',
  ];
  const lagging = rows.flatMap((r) => {
    const sc = r.scenarios;
    if (!sc) return [];
    const phases: [string, Phase][] = [
      ['alone', sc.hol.alone],
      ['with large', sc.hol.withLarge],
      ['alone', sc.flood.alone],
      ['in flood', sc.flood.during],
    ];
    return phases.filter(([, p]) => p.sendLagP99 > 5).map(([what]) => `${r.name} ${what}`);
  });
  if (lagging.length > 0)
    notes.push(
      `  NOTE: the load generator sent the small requests more than 5 ms late (p99) in: ${lagging.join(', ')}; ` +
        'there the client (or the machine), not the target, may be what the latency shows',
    );
  return notes;
}
