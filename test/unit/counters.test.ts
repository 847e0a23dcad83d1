// The counters store's marks and rate limits (src/platform/store/counters/): one contract, in-process (a fake clock;
// one thread's store and the store shared by threads) and in Redis (a test prefix, Redis server time). Marks hold their
// end and are gone after it (PX in Redis); extending keeps the longer end; a claim is set once per window (SET NX PX);
// the REST API's rate limit counts a calendar minute and bounds bursts. Keys carry the prefix and their hash tag.
import t, { type Test } from 'tap';
import { Redis } from 'ioredis';
import type { Clock } from '../../src/platform/clock.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { benchBoard } from '../../src/gateway/routing/bench-board.ts';
import type { Counters } from '../../src/platform/store/counters/counters.ts';
import { MemoryCounters } from '../../src/platform/store/counters/memory-counters.ts';
import { RedisCounters } from '../../src/platform/store/counters/redis-counters.ts';
import { SharedMemoryCounters } from '../../src/platform/store/counters/shared-memory-counters.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { roomInMinute } from '../helpers/gateways.ts';
import { redisTestPrefix, REDIS_URL } from '../helpers/redis.ts';
import { waitFor } from '../helpers/wait-for.ts';

const group = (name: string, ids: string[], routing: Record<string, unknown> = {}) =>
  ({
    name,
    routing: { retries: 1, bench_ms: 60_000, timeout_ms: 1000, max_backoff_ms: 1000, ...routing },
    deployments: ids.map((id) => ({ id, provider: 'mock', weight: 1 })),
  }) as any;

const IN_PROCESS = {
  memory: (clock: Clock) => new MemoryCounters(clock),
  shared: (clock: Clock) => new SharedMemoryCounters(SharedMemoryCounters.createBuffer(1024), clock),
};

for (const [kind, open] of Object.entries(IN_PROCESS))
  t.test(`in-process marks follow the injected clock (${kind})`, async (t) => {
    let now = 1_000_000;
    const clock: Clock = { now: () => now, sleep: systemClock.sleep };
    const c = open(clock);
    t.same(c.readMarks(['a', 'b']), [null, null], 'answered synchronously');
    t.equal(await c.extendMark('a', 1000), 1_001_000);
    t.equal(await c.extendMark('a', 500), 1_001_000, 'a shorter extension keeps the longer end');
    t.same(c.readMarks(['a', 'b']), [1_001_000, null]);
    now += 999;
    t.same(c.readMarks(['a']), [1_001_000]);
    now += 1;
    t.same(c.readMarks(['a']), [null], 'gone at its end');
    t.same(await c.claimMark('w', 60_000), { claimed: true, msLeft: 60_000 });
    now += 20_000;
    t.same(await c.claimMark('w', 60_000), { claimed: false, msLeft: 40_000 }, 'claimed once per window');
    now += 40_000;
    t.same(await c.claimMark('w', 60_000), { claimed: true, msLeft: 60_000 }, 'a new window');
  });

t.test('Redis marks: PX expiry, one claim per window, keys under the prefix and hash tag', async (t) => {
  const prefix = redisTestPrefix(t);
  const c = new RedisCounters({ url: REDIS_URL, prefix, log: silentLogger });
  await c.connect();
  t.teardown(() => c.close());
  const raw = new Redis(REDIS_URL);
  t.teardown(() => raw.disconnect());

  const board = benchBoard(c);
  const pair = group('pair', ['a', 'b']);
  t.same(await board.benched(pair), new Map(), 'nothing benched');
  const end = await board.bench(pair, 'a', 60_000);
  t.ok(Math.abs(end - Date.now() - 60_000) < 5_000, 'the end is 60 s from now (Redis time)');
  t.equal(await board.bench(pair, 'a', 1_000), end, 'a shorter bench keeps the longer end');
  t.same(await board.benched(pair), new Map([['a', end]]));
  const stored = `${prefix}{g:pair}:bench:a`;
  t.equal(await raw.get(stored), String(end), 'stored under the prefix and the group hash tag');
  const ttl = await raw.pttl(stored);
  t.ok(ttl > 55_000 && ttl <= 60_000, `expires with the bench (PTTL ${ttl})`);

  await board.bench(pair, 'b', 50);
  await waitFor('the short bench gone', async () => !(await board.benched(pair)).has('b'));
  t.equal(await raw.exists(`${prefix}{g:pair}:bench:b`), 0, 'the key expired');

  const lone = group('lone', ['only']);
  t.same(await board.benched(lone), new Map(), 'a group that cannot bench is not read');

  t.same(await c.claimMark('{p:x}:refusal', 60_000), { claimed: true, msLeft: 60_000 });
  const again = await c.claimMark('{p:x}:refusal', 60_000);
  t.equal(again.claimed, false, 'claimed once');
  t.ok(again.msLeft > 55_000 && again.msLeft <= 60_000, `how long the window has left (${again.msLeft})`);
});

const RATE_BACKENDS: Record<string, (t: Test) => Promise<Counters>> = {
  async Redis(t) {
    const c = new RedisCounters({ url: REDIS_URL, prefix: redisTestPrefix(t), log: silentLogger });
    await c.connect();
    t.teardown(() => c.close());
    return c;
  },
  async 'memory shared by threads'() {
    return new SharedMemoryCounters(SharedMemoryCounters.createBuffer(1024), systemClock);
  },
};

for (const [kind, open] of Object.entries(RATE_BACKENDS))
  t.test(`the REST rate limit in ${kind}: a burst bound and a calendar-minute window, as in-process`, async (t) => {
    const c = await open(t);
    await roomInMinute(5);

    const burst = { requestsPerMinute: 3, burst: 2 };
    const taken = [await c.admitRate('{r:b}:rate', burst), await c.admitRate('{r:b}:rate', burst)];
    t.same(
      taken.map((d) => [d.allowed, d.limit, d.remaining]),
      [
        [true, 3, 2],
        [true, 3, 1],
      ],
    );
    const minuteEnd = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
    t.ok(
      taken.every((d) => Math.abs(d.resetAt - minuteEnd) < 1_000),
      'reset: the end of the minute',
    );
    const refused = await c.admitRate('{r:b}:rate', burst);
    t.match(refused, { allowed: false, remaining: 1, refusedBy: 'burst' }, 'the third waits for the burst');
    t.ok(
      refused.retryAfterMs > 19_000 && refused.retryAfterMs <= 20_000,
      `one slot per 20 s (${refused.retryAfterMs} ms)`,
    );

    const window = { requestsPerMinute: 2, burst: 5 };
    t.same(
      [(await c.admitRate('{r:w}:rate', window)).allowed, (await c.admitRate('{r:w}:rate', window)).allowed],
      [true, true],
    );
    const full = await c.admitRate('{r:w}:rate', window);
    t.match(full, { allowed: false, remaining: 0, refusedBy: 'minute' }, 'the minute is used up');
    t.ok(Math.abs(full.retryAfterMs - (full.resetAt - Date.now())) < 1_000, 'retry after: the end of the minute');
  });
