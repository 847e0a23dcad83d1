// Counters in Redis, shared by every replica. Each check-and-add is one Lua script (redis-scripts.ts) using Redis
// server time: a joint admission of rate limits and budgets is one script call, its settlement one more. Commands
// fail at once while Redis is unreachable (no offline queue), so a request is refused with 503
// gateway_config_stale rather than left waiting; the client reconnects in the background. A Redis that keeps
// the connection but stops answering (frozen, overloaded, a half-dead link) is found by a ping every second with a
// short timeout: while it is not answering, available() is false (/ready 503) and calls fail at once without
// being sent, until a ping is answered again.
import { Redis } from 'ioredis';
import { rateDecision, slotIntervalUs, type RateLimitDecision, type RateLimitRule } from './rate-limit.ts';
import type { Logger } from '../../telemetry/logger.ts';
import {
  CountersUnavailableError,
  type Admission,
  type AdmissionChecks,
  type Counters,
  type Settlement,
  type SharedValues,
} from './counters.ts';
import { OneSideCalls } from './one-side-calls.ts';
import { MINUTE_TTL_MS, PERIOD_TTL_MS, periodOfId } from './periods.ts';
import {
  ADD_SAMPLE,
  ADJUST_EXISTING,
  ADMIT,
  ADMIT_RATE,
  CLAIM_MARK,
  COUNT_LEASES,
  EXTEND_MARK,
  TAKE_LEASE,
} from './redis-scripts.ts';

type Reply = (string | number)[];
interface ScriptedRedis extends Redis {
  svcAdmit(n: number, ...args: (string | number)[]): Promise<Reply>;
  svcAdjust(n: number, ...args: (string | number)[]): Promise<number>;
  svcExtendMark(n: number, ...args: (string | number)[]): Promise<number>;
  svcClaimMark(n: number, ...args: (string | number)[]): Promise<Reply>;
  svcAdmitRate(n: number, ...args: (string | number)[]): Promise<Reply>;
  svcCountLeases(n: number, ...args: (string | number)[]): Promise<number[]>;
  svcTakeLease(n: number, ...args: (string | number)[]): Promise<number>;
  svcAddSample(n: number, ...args: (string | number)[]): Promise<number>;
}

export interface RedisCountersOptions {
  url: string;
  /** Put before every key, so deployments (and test runs) sharing one Redis stay apart. */
  prefix: string;
  log: Logger;
  /** Longest wait for one command before it counts as a failure. */
  commandTimeoutMs?: number;
  /** How often Redis is pinged while connected. */
  pingIntervalMs?: number;
  /** Longest wait for a ping before Redis counts as not answering. */
  pingTimeoutMs?: number;
}

export class RedisCounters extends OneSideCalls implements Counters {
  readonly kind = 'redis' as const;
  readonly #redis: ScriptedRedis;
  readonly #prefix: string;
  readonly #log: Logger;
  readonly #pingTimeoutMs: number;
  readonly #pinger: NodeJS.Timeout;
  /** False from a ping or command that got no answer in time until a ping is answered. */
  #answering = true;
  #pinging = false;
  readonly shared: SharedValues;

  constructor(options: RedisCountersOptions) {
    super();
    this.#prefix = options.prefix;
    this.#log = options.log;
    this.#pingTimeoutMs = options.pingTimeoutMs ?? 500;
    const redis = new Redis(options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 1_000,
      retryStrategy: (times) => Math.min(times * 100, 1_000),
    });
    let down = false;
    redis.on('error', (err: Error) => {
      if (down) return;
      down = true;
      options.log.error('counters: Redis unreachable; limits cannot be enforced until it is back', {
        error: err.message,
      });
    });
    redis.on('ready', () => {
      if (down) options.log.info('counters: Redis reachable again');
      down = false;
    });
    redis.defineCommand('svcAdmit', { lua: ADMIT });
    redis.defineCommand('svcAdjust', { lua: ADJUST_EXISTING });
    redis.defineCommand('svcExtendMark', { lua: EXTEND_MARK });
    redis.defineCommand('svcClaimMark', { lua: CLAIM_MARK });
    redis.defineCommand('svcAdmitRate', { lua: ADMIT_RATE });
    redis.defineCommand('svcCountLeases', { lua: COUNT_LEASES });
    redis.defineCommand('svcTakeLease', { lua: TAKE_LEASE });
    redis.defineCommand('svcAddSample', { lua: ADD_SAMPLE });
    this.#redis = redis as ScriptedRedis;
    this.#pinger = setInterval(() => void this.#ping(), options.pingIntervalMs ?? 1_000).unref();
    const key = (k: string) => this.#prefix + k;
    this.shared = {
      get: (k) => this.#run(() => redis.getBuffer(key(k))),
      set: async (k, value, ttlMs) => {
        await this.#run(() => redis.set(key(k), value, 'PX', Math.max(1, Math.round(ttlMs))));
      },
    };
  }

  /** Connects; a Redis that is down now is not fatal: the gateway answers 503 until it is reachable. */
  async connect(): Promise<void> {
    await this.#redis.connect().catch(() => {});
  }

  async #run<T>(command: () => Promise<T>): Promise<T> {
    if (!this.#answering) throw new CountersUnavailableError('Redis: not answering');
    try {
      return await command();
    } catch (err) {
      if ((err as Error).message === 'Command timed out') this.#notAnswering((err as Error).message);
      throw new CountersUnavailableError(`Redis: ${(err as Error).message}`, { cause: err });
    }
  }

  async #ping(): Promise<void> {
    if (this.#pinging || this.#redis.status !== 'ready') return;
    this.#pinging = true;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>(
      (_, reject) =>
        (timer = setTimeout(
          () => reject(new Error(`no answer to PING within ${this.#pingTimeoutMs} ms`)),
          this.#pingTimeoutMs,
        )),
    );
    try {
      await Promise.race([this.#redis.ping(), late]);
      if (!this.#answering) this.#log.info('counters: Redis answering again');
      this.#answering = true;
    } catch (err) {
      this.#notAnswering((err as Error).message);
    } finally {
      clearTimeout(timer);
      this.#pinging = false;
    }
  }

  #notAnswering(reason: string): void {
    if (this.#answering)
      this.#log.error('counters: Redis not answering; limits cannot be enforced until it answers again', {
        error: reason,
      });
    this.#answering = false;
  }

  async admit(checks: AdmissionChecks): Promise<Admission> {
    const { minute: minuteChecks, period: periodChecks } = checks;
    const keys = [...minuteChecks, ...periodChecks].map((c) => this.#prefix + c.key);
    const args: (string | number)[] = [minuteChecks.length, MINUTE_TTL_MS];
    for (const c of minuteChecks) args.push(Math.round(c.amount), c.limit === undefined ? -1 : c.limit);
    for (const c of periodChecks)
      args.push(c.period, Math.round(c.amount), c.limit === undefined ? -1 : c.limit, PERIOD_TTL_MS[c.period]);
    const r = await this.#run(() => this.#redis.svcAdmit(keys.length, ...keys, ...args));
    const n = periodChecks.length;
    const index = Number(r[2]);
    const window = { minute: Number(r[3]), msLeft: Number(r[4]), periodIds: r.slice(5, 5 + n).map(String) };
    const values = () => r.slice(5 + n).map(Number);
    if (r[0] === 'allowed') return { outcome: 'allowed', ...window, values: values() };
    if (r[0] === 'unseeded') return { outcome: 'unseeded', index, ...window };
    if (r[1] === 'minute') return { outcome: 'refused', side: 'minute', failed: index, ...window };
    return { outcome: 'refused', side: 'period', failed: index, ...window, values: values() };
  }

  async settle(settlement: Settlement): Promise<void> {
    const keys: string[] = [];
    const deltas: number[] = [];
    const add = (key: string, delta: number) => {
      if (Math.round(delta) === 0) return;
      keys.push(this.#prefix + key);
      deltas.push(Math.round(delta));
    };
    const minute = settlement.minute;
    if (minute) for (const a of minute.adjustments) add(`${a.key}:${minute.minute}`, a.delta);
    for (const a of settlement.period ?? []) add(`${a.key}:${a.periodId}`, a.delta);
    if (keys.length === 0) return;
    await this.#run(() => this.#redis.svcAdjust(keys.length, ...keys, ...deltas));
  }

  async seedPeriod(key: string, periodId: string, value: number): Promise<void> {
    await this.#run(() =>
      this.#redis.set(
        `${this.#prefix}${key}:${periodId}`,
        Math.round(value),
        'PX',
        PERIOD_TTL_MS[periodOfId(periodId)],
        'NX',
      ),
    );
  }

  async readPeriods(entries: readonly { key: string; periodId: string }[]): Promise<(number | null)[]> {
    if (entries.length === 0) return [];
    const values = await this.#run(() =>
      this.#redis.mget(...entries.map((e) => `${this.#prefix}${e.key}:${e.periodId}`)),
    );
    return values.map((v) => (v === null ? null : Number(v)));
  }

  async readMarks(keys: readonly string[]): Promise<(number | null)[]> {
    if (keys.length === 0) return [];
    const values = await this.#run(() => this.#redis.mget(...keys.map((k) => this.#prefix + k)));
    return values.map((v) => (v === null ? null : Number(v)));
  }

  async extendMark(key: string, ms: number): Promise<number> {
    return Number(await this.#run(() => this.#redis.svcExtendMark(1, this.#prefix + key, Math.max(1, Math.round(ms)))));
  }

  async claimMark(key: string, ms: number): Promise<{ claimed: boolean; msLeft: number }> {
    const r = await this.#run(() => this.#redis.svcClaimMark(1, this.#prefix + key, Math.max(1, Math.round(ms))));
    return { claimed: r[0] === 1, msLeft: Number(r[1]) };
  }

  async countLeases(keys: readonly string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const counts = await this.#run(() => this.#redis.svcCountLeases(keys.length, ...keys.map((k) => this.#prefix + k)));
    return counts.map(Number);
  }

  async takeLease(key: string, id: string, ms: number): Promise<void> {
    await this.#run(() => this.#redis.svcTakeLease(1, this.#prefix + key, id, Math.max(1, Math.round(ms))));
  }

  async releaseLease(key: string, id: string): Promise<void> {
    await this.#run(() => this.#redis.zrem(this.#prefix + key, id));
  }

  async readAverages(key: string, fields: readonly string[]): Promise<(number | null)[]> {
    if (fields.length === 0) return [];
    const values = await this.#run(() => this.#redis.hmget(this.#prefix + key, ...fields));
    return values.map((v) => (v === null ? null : Number(v)));
  }

  async addSample(key: string, field: string, sample: number, alpha: number, ttlMs: number): Promise<void> {
    await this.#run(() =>
      this.#redis.svcAddSample(1, this.#prefix + key, field, sample, alpha, Math.max(1, Math.round(ttlMs))),
    );
  }

  async admitRate(key: string, rule: RateLimitRule): Promise<RateLimitDecision> {
    const r = await this.#run(() =>
      this.#redis.svcAdmitRate(
        1,
        this.#prefix + key,
        rule.requestsPerMinute,
        rule.burst,
        slotIntervalUs(rule),
        MINUTE_TTL_MS,
      ),
    );
    const msLeftInMinute = Number(r[2]);
    // The decision's times are read against this process's clock; Redis only says how far off they are.
    return rateDecision(
      rule,
      { admitted: r[0] === 1, count: Number(r[1]), msLeftInMinute, windowFull: r[3] === 1, burstWaitUs: Number(r[4]) },
      Date.now(),
    );
  }

  available(): boolean {
    return this.#redis.status === 'ready' && this.#answering;
  }

  async close(): Promise<void> {
    clearInterval(this.#pinger);
    this.#redis.disconnect();
  }
}
