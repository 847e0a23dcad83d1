// Load generation for bench/run.ts (runs in the bench's own process, never in a server process).
// - throughput: autocannon, N keep-alive connections, a fixed duration or number of requests; each answer's time.
// - latency and time to first byte: one undici Client (one keep-alive connection), requests back to back,
//   each timed with performance.now() (autocannon's histogram only has whole-millisecond resolution); or two such
//   connections, to a target and to the upstream directly, taking turns.
// - an open-loop rate (requests on a fixed schedule whatever the answers): bench/open-loop.ts.
import autocannon from 'autocannon';
import { Client } from 'undici';

export interface Target {
  url: string;
  path: string;
  headers: Record<string, string>;
}

export interface ThroughputResult {
  rps: number;
  ok: number;
  bad: number;
  seconds: number;
  /** Milliseconds from sending each 2xx request to its complete answer, in completion order. */
  latency: Float64Array;
}

export interface ThroughputOptions {
  connections: number;
  /** Runs this long... */
  seconds?: number;
  /** ...or until this many requests are answered (takes precedence). */
  amount?: number;
  /** Caps the total requests per second (autocannon overallRate); otherwise as fast as possible. */
  rate?: number;
}

/**
 * Keep-alive load at `connections` connections. A body containing `[<id>]` gets a fresh random id there in every
 * request (autocannon idReplacement), so no two requests are alike.
 */
export async function throughput(target: Target, body: string, options: ThroughputOptions): Promise<ThroughputResult> {
  const run = autocannon({
    ...(options.rate ? { overallRate: options.rate } : {}),
    ...(options.amount ? { amount: options.amount } : { duration: options.seconds ?? 1 }),
    url: target.url + target.path,
    method: 'POST',
    headers: target.headers,
    body,
    idReplacement: body.includes('[<id>]'),
    connections: options.connections,
    pipelining: 1,
    timeout: 10,
  }) as unknown as autocannon.Instance & PromiseLike<autocannon.Result>;
  // autocannon's own histogram keeps whole milliseconds; the response times it reports are finer.
  const latencies: number[] = [];
  run.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const result = await run;
  const bad = result.non2xx + result.errors + result.timeouts;
  return {
    rps: result['2xx'] / result.duration,
    ok: result['2xx'],
    bad,
    seconds: result.duration,
    latency: Float64Array.from(latencies),
  };
}

export interface TimedResult {
  /** Milliseconds, one per request, in completion order. */
  total: Float64Array;
  /** Milliseconds to the response headers. */
  headers: Float64Array;
  /** Milliseconds to the first byte of the response body (for SSE: the first `data:` event). */
  firstByte: Float64Array;
  count: number;
  bad: number;
}

interface OneTiming {
  headers: number;
  firstByte: number;
  total: number;
  ok: boolean;
}

/** One keep-alive connection to a target and a function that sends one request on it and times it. */
function oneConnection(target: Target, body: string, endsWith: string) {
  const origin = new URL(target.url).origin;
  const client = new Client(origin, { pipelining: 1, keepAliveTimeout: 30_000 });
  const tail = Buffer.from(endsWith);
  const options = { origin, path: target.path, method: 'POST' as const, headers: target.headers, body };
  const one = () =>
    new Promise<OneTiming>((resolve) => {
      let status = 0;
      let tHeaders = 0;
      let tFirst = 0;
      let last: Buffer | undefined;
      const t0 = performance.now();
      client.dispatch(options, {
        onRequestStart() {},
        onResponseStart(_c, statusCode) {
          status = statusCode;
          tHeaders = performance.now();
        },
        onResponseData(_c, chunk) {
          if (tFirst === 0) tFirst = performance.now();
          last = chunk;
        },
        onResponseEnd() {
          const t = performance.now();
          const ok =
            status === 200 &&
            last !== undefined &&
            last.length >= tail.length &&
            last.subarray(last.length - tail.length).equals(tail);
          resolve({ headers: tHeaders - t0, firstByte: (tFirst || t) - t0, total: t - t0, ok });
        },
        onResponseError() {
          resolve({ headers: 0, firstByte: 0, total: performance.now() - t0, ok: false });
        },
      });
    });
  return { one, close: () => client.close() };
}

/** Collects the timings of successful requests, up to `cap`. */
function timings(cap = 200_000) {
  const total = new Float64Array(cap);
  const headers = new Float64Array(cap);
  const firstByte = new Float64Array(cap);
  let count = 0;
  let bad = 0;
  return {
    full: () => count >= cap,
    add(r: OneTiming) {
      if (!r.ok) {
        bad++;
        return;
      }
      total[count] = r.total;
      headers[count] = r.headers;
      firstByte[count] = r.firstByte;
      count++;
    },
    result: (): TimedResult => ({
      total: total.subarray(0, count),
      headers: headers.subarray(0, count),
      firstByte: firstByte.subarray(0, count),
      count,
      bad,
    }),
  };
}

/**
 * Sends requests one after another on one connection for `seconds` and times each. A request counts as
 * failed unless its status is 200 and its body ends with `endsWith`.
 */
export async function timedSequential(
  target: Target,
  body: string,
  seconds: number,
  endsWith: string,
): Promise<TimedResult> {
  const conn = oneConnection(target, body, endsWith);
  const times = timings();
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline && !times.full()) times.add(await conn.one());
  await conn.close();
  return times.result();
}

/**
 * timedSequential through two targets at once, alternating request by request (one connection each, never both
 * busy), for about `seconds` each (twice that in all): both samples see the same moments of the machine, so their
 * difference is the cost of what differs.
 */
export async function timedAlternating(
  a: Target,
  b: Target,
  body: string,
  seconds: number,
  endsWith: string,
): Promise<[TimedResult, TimedResult]> {
  const conns = [oneConnection(a, body, endsWith), oneConnection(b, body, endsWith)];
  const times = [timings(), timings()];
  const deadline = performance.now() + 2 * seconds * 1000;
  while (performance.now() < deadline && !times[0].full() && !times[1].full())
    for (let i = 0; i < 2; i++) times[i].add(await conns[i].one());
  await Promise.all(conns.map((c) => c.close()));
  return [times[0].result(), times[1].result()];
}

/** Nearest-rank percentile of a sample (p in 0..100). */
export function percentile(values: Float64Array, p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function median(values: number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
