// The routing strategies' shared figures (plugins/router/routing-board.ts) on both counters stores: requests in flight
// as leases (taken, released, gone when their time is up), latency as a moving average (the first sample sets it,
// later ones move it by LATENCY_ALPHA, dropped when no sample came for a while). In Redis the keys carry the prefix
// and the group's hash tag, and two counters objects (two replicas) see each other's figures.
import t from 'tap';
import { Redis } from 'ioredis';
import type { ModelGroupConfig } from '../../src/platform/config/types.ts';
import {
  IN_FLIGHT_LEASE_MS,
  LATENCY_ALPHA,
  LATENCY_TTL_MS,
  routingBoard,
  type DeploymentFigures,
} from '../../plugins/router/routing-board.ts';
import { MemoryCounters } from '../../src/platform/store/counters/memory-counters.ts';
import { RedisCounters } from '../../src/platform/store/counters/redis-counters.ts';
import { SharedMemoryCounters } from '../../src/platform/store/counters/shared-memory-counters.ts';
import type { Clock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { fakeClock } from '../helpers/plugin.ts';
import { redisTestPrefix, REDIS_URL } from '../helpers/redis.ts';

const group = (name: string, ids: string[]) =>
  ({
    name,
    routing: { strategy: 'least-busy', retries: 1, bench_ms: 0, timeout_ms: 1000, max_backoff_ms: 1000 },
    deployments: ids.map((id) => ({ id, provider: 'mock', weight: 1 })),
  }) as unknown as ModelGroupConfig;

/** In-process figures (answered synchronously) as a plain object. */
const plain = (figures: DeploymentFigures | Promise<DeploymentFigures>) =>
  Object.fromEntries(figures as DeploymentFigures);

const IN_PROCESS = {
  memory: (clock: Clock) => new MemoryCounters(clock),
  shared: (clock: Clock) => new SharedMemoryCounters(SharedMemoryCounters.createBuffer(1024), clock),
};

for (const [kind, open] of Object.entries(IN_PROCESS))
  t.test(`in-process (${kind}): leases and averages answer synchronously and follow the clock`, async (t) => {
    const clock = fakeClock();
    const board = routingBoard(open(clock));
    const g = group('g', ['a', 'b']);
    const none = { a: 0, b: 0 };
    t.same(plain(board.inFlight(g)), none, 'nothing in flight, answered without a promise');
    await board.start(g, 'a', 'r1');
    await board.start(g, 'a', 'r2');
    await board.start(g, 'b', 'r3');
    t.same(plain(board.inFlight(g)), { a: 2, b: 1 });
    await board.end(g, 'a', 'r1');
    await board.end(g, 'a', 'r1');
    t.same(plain(board.inFlight(g)), { a: 1, b: 1 }, 'ending a lease twice ends it once');
    clock.advance(IN_FLIGHT_LEASE_MS);
    t.same(plain(board.inFlight(g)), none, 'leases not ended are gone when their time is up');

    t.same(plain(board.latencies(g)), {});
    await board.recordLatency(g, 'a', 100);
    t.same(plain(board.latencies(g)), { a: 100 }, 'the first sample sets the average');
    await board.recordLatency(g, 'a', 200);
    t.same(plain(board.latencies(g)), { a: 100 + LATENCY_ALPHA * 100 }, 'a later sample moves it by alpha');
    clock.advance(LATENCY_TTL_MS);
    t.same(plain(board.latencies(g)), {}, 'dropped after a while without samples');
  });

t.test('Redis: two replicas share leases and averages under the prefix and the group hash tag', async (t) => {
  const prefix = redisTestPrefix(t);
  const open = async () => {
    const c = new RedisCounters({ url: REDIS_URL, prefix, log: silentLogger });
    await c.connect();
    t.teardown(() => c.close());
    return routingBoard(c);
  };
  const [one, two] = [await open(), await open()];
  const raw = new Redis(REDIS_URL);
  t.teardown(() => raw.disconnect());
  const g = group('pair', ['a', 'b']);

  await one.start(g, 'a', 'r1');
  await two.start(g, 'a', 'r2');
  await two.start(g, 'b', 'r3');
  t.same(Object.fromEntries(await one.inFlight(g)), { a: 2, b: 1 }, 'each replica counts the other one too');
  await one.end(g, 'a', 'r2');
  t.same(Object.fromEntries(await two.inFlight(g)), { a: 1, b: 1 }, 'a lease is ended by whichever replica ends it');
  t.same(await raw.zrange(`${prefix}{g:pair}:busy:a`, 0, -1), ['r1'], 'a sorted set under the prefix and hash tag');
  const ttl = await raw.pttl(`${prefix}{g:pair}:busy:a`);
  t.ok(ttl > 0 && ttl <= IN_FLIGHT_LEASE_MS, 'the set lasts as long as its longest lease');
  // A lease whose time is up (a replica that died holding it) no longer counts.
  await raw.zadd(`${prefix}{g:pair}:busy:b`, 1, 'from-a-dead-replica');
  t.same(Object.fromEntries(await one.inFlight(g)), { a: 1, b: 1 }, 'an ended lease is not counted');

  await one.recordLatency(g, 'b', 400);
  await two.recordLatency(g, 'b', 100);
  t.same(Object.fromEntries(await two.latencies(g)), { b: 400 - LATENCY_ALPHA * 300 }, 'one average across replicas');
  const latencyTtl = await raw.pttl(`${prefix}{g:pair}:latency`);
  t.ok(latencyTtl > 0 && latencyTtl <= LATENCY_TTL_MS, 'dropped after a while without samples');
});
