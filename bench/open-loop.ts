// Open-loop load for `npm run bench -- --sustained` (bench/sustained.ts), in the bench's own process. Requests go
// out on a fixed schedule, the i-th at start + i / rate, whether or not the earlier ones have been answered: unlike
// N connections that each wait for their answer (a closed loop, which slows down with the server and so never sees
// its queue), the offered rate stays the same however slow the server gets. Each request's latency counts from its
// scheduled time, not from when it was actually written, so time spent waiting (for a free connection, in the
// server's backlog, or behind the client's own timer) is in it: coordinated omission corrected.
//
// The schedule is kept by a timer of about 1 ms: every tick sends the requests that are due, so a request may go out
// up to a tick late, and that lateness is in its latency (the send lag is reported separately). The undici Pool
// opens up to 1024 keep-alive connections as needed and keeps them from one step to the next.
import { Pool } from 'undici';
import { percentile, type Target } from './load.ts';

export interface OpenLoopResult {
  /** Requests per second asked for. */
  rate: number;
  /** Seconds of the schedule. */
  seconds: number;
  sent: number;
  /** 2xx answers complete within the timeout. */
  ok: number;
  non2xx: number;
  /** Answers within the timeout by status code (2xx and non-2xx alike). */
  statuses: Record<number, number>;
  /** Connection failures and other transport errors. */
  failed: number;
  /** Not answered within the timeout of its scheduled time. */
  timeouts: number;
  /** Milliseconds from each ok request's scheduled time to the end of its answer, in completion order. */
  latency: Float64Array;
  /** Milliseconds each request was written after its scheduled time (the client's own lag), p99 and max. */
  sendLagP99: number;
  sendLagMax: number;
  /** CPU this process used over the step, µs. */
  loadCpu: number;
}

export interface OpenLoopOptions {
  rate: number;
  seconds: number;
  /** A request not answered this many ms after its scheduled time counts as a timeout (an error). */
  timeoutMs: number;
}

const MAX_CONNECTIONS = 1024;

/** One target's open-loop client; `step` runs one rate, `close` ends its connections. */
export class OpenLoop {
  private pool: Pool;
  private readonly origin: string;
  private readonly target: Target;
  private readonly body: string | Buffer;

  /** `body` is sent as is with every request (a Buffer spares re-encoding a large one each time). */
  constructor(target: Target, body: string | Buffer) {
    this.target = target;
    this.body = body;
    this.origin = new URL(target.url).origin;
    this.pool = this.newPool();
  }

  private newPool(): Pool {
    return new Pool(this.origin, { connections: MAX_CONNECTIONS, pipelining: 1, keepAliveTimeout: 30_000 });
  }

  async step(o: OpenLoopOptions): Promise<OpenLoopResult> {
    const total = Math.max(1, Math.round(o.rate * o.seconds));
    const interval = 1000 / o.rate;
    const latency: number[] = [];
    const lags = new Float64Array(total);
    let ok = 0;
    let non2xx = 0;
    let failed = 0;
    let timeouts = 0;
    const statuses: Record<number, number> = {};
    let pending = 0;
    let sent = 0;
    /** Set once the step has given up on the answers still pending. */
    let over = false;
    let drained: (() => void) | undefined;
    const pool = this.pool;
    const dispatch = { origin: this.origin, path: this.target.path, method: 'POST' as const };
    const options = { ...dispatch, headers: this.target.headers, body: this.body };

    const send = (scheduled: number, now: number) => {
      lags[sent++] = now - scheduled;
      pending++;
      let status = 0;
      let done = false;
      const finish = (kind: 'answered' | 'failed') => {
        if (done || over) return;
        done = true;
        pending--;
        const ms = performance.now() - scheduled;
        if (kind === 'failed') failed++;
        else if (ms > o.timeoutMs) timeouts++;
        else {
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (status < 200 || status >= 300) non2xx++;
          else {
            ok++;
            latency.push(ms);
          }
        }
        if (pending === 0 && sent === total) drained?.();
      };
      pool.dispatch(options, {
        onRequestStart() {},
        onResponseStart(_c, statusCode) {
          status = statusCode;
        },
        onResponseData() {},
        onResponseEnd: () => finish('answered'),
        onResponseError: () => finish('failed'),
      });
    };

    const l0 = process.cpuUsage();
    const start = performance.now() + 1;
    await new Promise<void>((resolve) => {
      const tick = () => {
        const now = performance.now();
        while (sent < total && start + sent * interval <= now) send(start + sent * interval, now);
        if (sent < total) setTimeout(tick, Math.min(1, start + sent * interval - now));
        else resolve();
      };
      setTimeout(tick, 1);
    });
    // The answers still on their way: all of them, or whatever came back until the last one's timeout.
    const last = start + (total - 1) * interval;
    if (pending > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (drained = resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, last + o.timeoutMs + 50 - performance.now()))),
      ]);
      clearTimeout(timer);
    }
    if (pending > 0) {
      // Never answered: timeouts. Their connections are dropped, and the next step starts on a fresh pool.
      timeouts += pending;
      over = true;
      this.pool = this.newPool();
      void pool.destroy().catch(() => {});
    }
    const l1 = process.cpuUsage(l0);
    return {
      rate: o.rate,
      seconds: o.seconds,
      sent,
      ok,
      non2xx,
      statuses,
      failed,
      timeouts,
      latency: Float64Array.from(latency),
      sendLagP99: percentile(lags.subarray(0, sent), 99),
      sendLagMax: percentile(lags.subarray(0, sent), 100),
      loadCpu: l1.user + l1.system,
    };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
