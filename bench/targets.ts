// The bench's targets: what each row is, how its server process is started (role and environment for
// bench/gateway-target.ts), and the issue-19 goals it is checked against. A target whose PostgreSQL or Redis is
// unreachable, or whose server fails to start, is reported as unavailable with the reason instead of measured.
import { Redis } from 'ioredis';
import pg from 'pg';
import { ServerProcess, lastError } from './processes.ts';
import type { RoutingStrategy } from '../src/platform/config/types.ts';
import type { Role } from './server-process.ts';

export interface Goals {
  /** req/s at 32 connections, at least this times the floor's. */
  rpsRatio?: number;
  /** p99 at 32 and at 128 connections, at most this times the floor's. */
  p99Ratio?: number;
  /** RSS after the load, at most this many MB. */
  rssMb?: number;
  /** p50 at one connection, at most this many ms over the floor's. */
  addedP50Ms?: number;
  /** Streamed time to first byte at one connection, at most this many ms over the floor's. */
  addedTtfbMs?: number;
}

export interface TargetSpec {
  name: string;
  description: string;
  role: Role;
  store?: 'embedded' | 'postgres';
  counters?: 'in-process' | 'redis';
  /** The bench group's `routing.strategy` (default weighted). */
  strategy?: RoutingStrategy;
  /** Deployments in the bench group; default `--deployments`. */
  deployments?: number;
  /** Threads serving the gateway (`server.workers`); default 1. Named `<row>-w<N>`, e.g. gateway-w2. */
  workers?: number;
  /** `server.large_request_bytes`; default 0 (off). Named `<row>-large`, e.g. governed-large or gateway-w2-large. */
  largeRequestBytes?: number;
  goals: Goals;
}

const LATENCY_GOALS = { p99Ratio: 2, addedP50Ms: 0.1, addedTtfbMs: 0.3 };

export const TARGETS: TargetSpec[] = [
  { name: 'floor', description: 'bare undici pass-through (bench/floor-proxy.ts)', role: 'floor', goals: {} },
  {
    name: 'gateway',
    description: 'auth + router, embedded store',
    role: 'gateway',
    store: 'embedded',
    goals: { rpsRatio: 0.8, rssMb: 250, ...LATENCY_GOALS },
  },
  {
    name: 'governed',
    description: 'all policies + tracing, embedded store, in-process counters (the default configuration)',
    role: 'gateway-traced',
    store: 'embedded',
    counters: 'in-process',
    goals: { rpsRatio: 0.4, rssMb: 250, ...LATENCY_GOALS },
  },
  {
    name: 'governed-pg',
    description: 'all policies + tracing, PostgreSQL, in-process counters',
    role: 'gateway-traced',
    store: 'postgres',
    counters: 'in-process',
    goals: { rpsRatio: 0.5, rssMb: 150, ...LATENCY_GOALS },
  },
  {
    name: 'governed-pg-redis',
    description: 'all policies + tracing, PostgreSQL, Redis counters',
    role: 'gateway-traced',
    store: 'postgres',
    counters: 'redis',
    goals: { rpsRatio: 0.4, rssMb: 150, ...LATENCY_GOALS },
  },
  // Not in the default run (--targets): the earlier bench's rows.
  {
    name: 'traced',
    description: 'auth + router + tracing, embedded store',
    role: 'gateway-traced',
    store: 'embedded',
    goals: {},
  },
  {
    name: 'anthropic',
    description: 'auth + router, an Anthropic deployment (every request and answer translated), embedded store',
    role: 'gateway-anthropic',
    store: 'embedded',
    goals: {},
  },
  // With --strategies: the gateway row once per routing strategy, over three deployments so each has a choice.
  ...(['weighted', 'least-busy', 'latency', 'cost', 'prefix-affinity'] as const).map((strategy): TargetSpec => ({
    name: `strategy-${strategy}`,
    description: `auth + router, routing.strategy ${strategy} over 3 deployments, embedded store`,
    role: 'gateway',
    store: 'embedded',
    strategy,
    deployments: 3,
    goals: {},
  })),
];

export const DEFAULT_TARGETS = ['floor', 'gateway', 'governed', 'governed-pg', 'governed-pg-redis'];
export const STRATEGY_TARGETS = TARGETS.filter((t) => t.strategy !== undefined).map((t) => t.name);

/** The large-request thread's threshold in the `-large` rows: the smallest body the worker pool serialises. */
const BENCH_LARGE_REQUEST_BYTES = 256 * 1024;

/**
 * A gateway row served by `workers` threads (`<row>-w<N>`), with the large-request thread (`<row>-large`), or both
 * (`<row>-w<N>-large`).
 */
function withWorkers(name: string): TargetSpec | undefined {
  const m = /^(.+?)(?:-w(\d+))?(-large)?$/.exec(name);
  const base = m && (m[2] || m[3]) ? TARGETS.find((t) => t.name === m[1] && t.role !== 'floor') : undefined;
  if (!m || !base) return undefined;
  const workers = m[2] ? Number(m[2]) : undefined;
  const largeRequestBytes = m[3] ? BENCH_LARGE_REQUEST_BYTES : undefined;
  const described = [
    base.description,
    ...(workers ? [`${workers} gateway threads`] : []),
    ...(largeRequestBytes ? [`bodies from ${largeRequestBytes / 1024} KiB on served by the large-request thread`] : []),
  ].join(', ');
  return { ...base, name, workers, largeRequestBytes, description: described, goals: {} };
}

export function targetsNamed(names: string[]): TargetSpec[] {
  const unknown = names.filter((n) => !TARGETS.some((t) => t.name === n) && !withWorkers(n));
  if (unknown.length > 0)
    throw new Error(
      `unknown target ${unknown.join(', ')}; known: ${TARGETS.map((t) => t.name).join(', ')}, and <row>-w<N> ` +
        '(the row served by N threads), <row>-large (with the large-request thread)',
    );
  // The floor is always measured: every ratio is to it. Rows in the order named after the known ones.
  const known = TARGETS.filter((t) => t.name === 'floor' || names.includes(t.name));
  return [...known, ...names.flatMap((n) => withWorkers(n) ?? [])];
}

export interface Backends {
  postgres: string;
  redis: string;
  deployments: number;
  /** Node and V8 flags the gateway processes run with (`--node-flags`), as an operator would put on the command line. */
  nodeFlags: string[];
  /** Environment variables they start with (`--node-env`), as the start script sets them. */
  nodeEnv: Record<string, string>;
}

export type Started =
  | { spec: TargetSpec; proc: ServerProcess; unavailable?: undefined }
  | { spec: TargetSpec; proc?: undefined; unavailable: string };

/** The resources a run created (databases), released by `release()`. */
export interface StartedTargets {
  targets: Started[];
  release(): Promise<void>;
}

/** Connects to PostgreSQL and creates a database of the run's own; dropped by the returned function. */
async function createDatabase(serverUrl: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
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

async function pingRedis(url: string): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 5000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let failure: Error | undefined;
  redis.on('error', (err: Error) => (failure ??= err));
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw failure ?? err;
  } finally {
    redis.disconnect();
  }
}

const reason = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0];

/** Starts each target's server process (all at once), each with a database of its own when on PostgreSQL. */
export async function startTargets(
  specs: TargetSpec[],
  upstreamBaseUrl: string,
  backends: Backends,
): Promise<StartedTargets> {
  const drops: (() => Promise<void>)[] = [];
  const startOne = async (spec: TargetSpec, index: number): Promise<Started> => {
    const env: Record<string, string> = {
      ...backends.nodeEnv,
      SVC_BENCH_DEPLOYMENTS: String(spec.deployments ?? backends.deployments),
      SVC_BENCH_STRATEGY: spec.strategy ?? '',
      SVC_BENCH_POSTGRES_URL: '',
      SVC_BENCH_POLICIES: '',
      SVC_BENCH_WORKERS: String(spec.workers ?? 1),
      SVC_BENCH_LARGE_REQUEST_BYTES: String(spec.largeRequestBytes ?? 0),
    };
    if (spec.store === 'postgres') {
      try {
        const db = await createDatabase(backends.postgres, `svc_bench_${process.pid}_${index}`);
        drops.push(db.drop);
        env.SVC_BENCH_POSTGRES_URL = db.url;
      } catch (err) {
        return { spec, unavailable: `PostgreSQL at ${redact(backends.postgres)} unreachable: ${reason(err)}` };
      }
    }
    if (spec.counters === 'redis') {
      try {
        await pingRedis(backends.redis);
      } catch (err) {
        return { spec, unavailable: `Redis at ${redact(backends.redis)} unreachable: ${reason(err)}` };
      }
      env.SVC_BENCH_POLICIES = backends.redis;
    } else if (spec.counters === 'in-process') env.SVC_BENCH_POLICIES = 'memory';
    try {
      return { spec, proc: await ServerProcess.start(spec.role, [upstreamBaseUrl], env, backends.nodeFlags) };
    } catch (err) {
      return { spec, unavailable: `did not start: ${lastError(reason(err))}` };
    }
  };
  const targets = await Promise.all(specs.map(startOne));
  return {
    targets,
    async release() {
      await Promise.all(targets.map((t) => t.proc?.stop()));
      for (const drop of drops) await drop().catch(() => {});
    },
  };
}

/** A connection URL without its password, for printing. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}
