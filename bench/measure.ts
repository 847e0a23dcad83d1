// One round of measurements of one target (bench/run.ts runs them, interleaved, for every target and round):
// req/s and the p99 at 32 and at 128 connections, server CPU per request, the event-loop delay and GC pauses inside
// the server during both loads, latency at one connection, and the streamed time to first byte. Also the sanity
// check every target must pass before it is measured, and the warm-up.
import { request } from 'undici';
import { BENCH_GROUP, BENCH_KEY } from './gateway-target.ts';
import { percentile, throughput, timedSequential, type Target } from './load.ts';
import { otherLoadSince, type Measured } from './processes.ts';
import type { ObserveReply } from './server-process.ts';

export const PATH = '/v1/chat/completions';
const REQUEST = {
  model: BENCH_GROUP,
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Say hello in one short sentence.' },
  ],
  max_tokens: 64,
  temperature: 0.2,
};
export const JSON_BODY = JSON.stringify(REQUEST);
export const STREAM_BODY = JSON.stringify({ ...REQUEST, stream: true });
/** A different user message in every request (autocannon puts a random id for `[<id>]`): no cache can help. */
export const UNIQUE_BODY = JSON.stringify({
  ...REQUEST,
  messages: [REQUEST.messages[0], { role: 'user', content: 'Say hello in one short sentence. Request [<id>].' }],
});
export const SVC_HEADERS = { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` };

/** Something measured: a server process and how the load addresses it. */
export interface Subject {
  name: string;
  proc: Measured;
  target: Target;
  /** False for a peer whose streamed answers fail: its first-byte figures are left out. */
  streams: boolean;
}

export function subject(name: string, proc: Measured, headers: Record<string, string> = SVC_HEADERS): Subject {
  return { name, proc, target: { url: proc.url, path: PATH, headers }, streams: true };
}

export interface Loads {
  /** Seconds of each throughput run. */
  duration: number;
  connections: number;
  highConnections: number;
  latencyDuration: number;
  ttfbDuration: number;
  /** Caps the `connections` run at this many req/s. */
  rate?: number;
}

export interface RoundResult {
  rps: number;
  /** ms, at `connections` connections. */
  p99: number;
  rpsHigh: number;
  /** ms, at `highConnections` connections. */
  p99High: number;
  /** Server CPU per request at `connections` connections, µs (including the trace writes after the run). */
  cpuPerReq: number;
  /** Server CPU use during the throughput run, in cores (1 = one core busy all the time). */
  cpuCores: number;
  upstreamCpuPerReq: number;
  /** Event-loop delay and GC inside the server during each throughput run (our own servers only). */
  inside?: ObserveReply;
  insideHigh?: ObserveReply;
  /** One connection, ms. */
  p50One: number;
  p99One: number;
  /** Server CPU per request at one connection, µs. */
  cpuPerReqOne: number;
  ttfbP50: number;
  ttfbHeadersP50: number;
  streamTotalP50: number;
  /** This process's (autocannon's) CPU per request during the throughput run, µs. */
  loadCpuPerReq: number;
  /** CPU used by processes outside the bench while this target was measured, in cores (noise). */
  otherLoad: number;
  bad: number;
  /** How long the server still worked (wrote traces) after the throughput run ended, ms; included in cpuPerReq. */
  settleMs: number;
}

export interface Context {
  loads: Loads;
  upstream: Measured;
  cores: number;
  /** The bench's own processes (for the noise figure). */
  ourPids(): number[];
}

export async function measure(s: Subject, ctx: Context): Promise<RoundResult> {
  const { loads, upstream } = ctx;
  const { proc, target } = s;
  const otherLoad = otherLoadSince(ctx.ourPids, ctx.cores);
  const [c0, u0] = await Promise.all([proc.cpu(), upstream.cpu()]);
  const l0 = process.cpuUsage();
  await proc.observeStart();
  const tp = await throughput(target, JSON_BODY, {
    connections: loads.connections,
    seconds: loads.duration,
    rate: loads.rate,
  });
  const inside = await proc.observeStop();
  const l1 = process.cpuUsage(l0);
  // Trace writes run behind the requests: their CPU counts for the requests that caused them, and they must not
  // spill into the next measurement on the shared core.
  const settleStart = performance.now();
  await proc.settle();
  const settleMs = performance.now() - settleStart;
  const [c1, u1] = await Promise.all([proc.cpu(), upstream.cpu()]);
  await proc.observeStart();
  const high = await throughput(target, JSON_BODY, { connections: loads.highConnections, seconds: loads.duration });
  const insideHigh = await proc.observeStop();
  await proc.settle();
  const c2 = await proc.cpu();
  const lat = await timedSequential(target, JSON_BODY, loads.latencyDuration, '}');
  await proc.settle();
  const c3 = await proc.cpu();
  const tt = s.streams ? await timedSequential(target, STREAM_BODY, loads.ttfbDuration, 'data: [DONE]\n\n') : undefined;
  await proc.settle();
  return {
    rps: tp.rps,
    p99: percentile(tp.latency, 99),
    rpsHigh: high.rps,
    p99High: percentile(high.latency, 99),
    cpuPerReq: (c1 - c0) / tp.ok,
    cpuCores: (c1 - c0) / (tp.seconds * 1e6),
    upstreamCpuPerReq: proc === upstream ? Number.NaN : (u1 - u0) / tp.ok,
    inside,
    insideHigh,
    loadCpuPerReq: (l1.user + l1.system) / tp.ok,
    otherLoad: otherLoad(),
    p50One: percentile(lat.total, 50),
    p99One: percentile(lat.total, 99),
    cpuPerReqOne: (c3 - c2) / lat.count,
    ttfbP50: tt ? percentile(tt.firstByte, 50) : Number.NaN,
    ttfbHeadersP50: tt ? percentile(tt.headers, 50) : Number.NaN,
    streamTotalP50: tt ? percentile(tt.total, 50) : Number.NaN,
    bad: tp.bad + high.bad + lat.bad + (tt?.bad ?? 0),
    settleMs,
  };
}

/** One JSON and one streamed request through a target, checked, before anything is measured. */
export async function sanityCheck(s: Subject): Promise<void> {
  await jsonCheck(s);
  await streamCheck(s);
}

export async function jsonCheck(s: Subject): Promise<void> {
  const url = s.target.url + s.target.path;
  const json = await request(url, { method: 'POST', headers: s.target.headers, body: JSON_BODY });
  const text = await json.body.text();
  let content: unknown;
  try {
    content = (JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
  } catch {
    content = undefined;
  }
  if (json.statusCode !== 200 || typeof content !== 'string') {
    throw new Error(`${s.name}: chat completion failed (${json.statusCode}): ${text.slice(0, 500)}`);
  }
}

export async function streamCheck(s: Subject): Promise<void> {
  const url = s.target.url + s.target.path;
  const stream = await request(url, { method: 'POST', headers: s.target.headers, body: STREAM_BODY });
  const events = await stream.body.text();
  if (stream.statusCode !== 200 || !events.trimEnd().endsWith('data: [DONE]') || !events.includes('Hello!')) {
    throw new Error(`${s.name}: streamed chat completion failed (${stream.statusCode}): ${events.slice(0, 500)}`);
  }
}

/** Returns the requests sent. */
export async function warmUp(s: Subject, connections: number): Promise<void> {
  await throughput(s.target, JSON_BODY, { connections, seconds: 2 });
  await s.proc.settle();
  if (s.streams) await throughput(s.target, STREAM_BODY, { connections, seconds: 1 });
  await s.proc.settle();
  await timedSequential(s.target, JSON_BODY, 0.5, '}');
  if (s.streams) await timedSequential(s.target, STREAM_BODY, 0.5, 'data: [DONE]\n\n');
  await s.proc.settle();
}
