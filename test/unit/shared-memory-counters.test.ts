// The counters store shared by the worker threads of one process (src/platform/store/counters/shared-memory-counters.ts
// over shared-table.ts): exact across real threads (admissions, rate limits and claims made at once by four workers
// add up to the limit, never past it), the same answers as the single-thread store for any sequence of calls, the
// table's own rules (expired slots reclaimed, the outcome when full, deletion that keeps later entries findable), and
// leases and averages seen by every instance over one buffer.
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { MemoryCounters } from '../../src/platform/store/counters/memory-counters.ts';
import { SharedMemoryCounters } from '../../src/platform/store/counters/shared-memory-counters.ts';
import { CountersFullError, digest, Kind, SharedTable } from '../../src/platform/store/counters/shared-table.ts';
import { fakeClock } from '../helpers/plugin.ts';

/** 12:00:20 UTC: 40 s left in the minute. */
const NOON = Date.parse('2027-01-10T12:00:20Z');
const WORKER = new URL('../fixtures/shared-counters/worker.ts', import.meta.url);

/** Runs `threads` workers making `rounds` calls of `op` at once over `buffer`; resolves with what each let through. */
async function race(buffer: SharedArrayBuffer, op: string, threads: number, rounds: number): Promise<number[]> {
  const gate = new SharedArrayBuffer(8);
  const gateWords = new Int32Array(gate);
  const workers = Array.from(
    { length: threads },
    () => new Worker(WORKER, { workerData: { buffer, gate, now: NOON, op, rounds } }),
  );
  try {
    const results = workers.map(
      (w) =>
        new Promise<number>((resolve, reject) => {
          w.once('message', resolve);
          w.once('error', reject);
        }),
    );
    while (Atomics.load(gateWords, 1) < threads) await new Promise((r) => setTimeout(r, 5));
    Atomics.store(gateWords, 0, 1);
    Atomics.notify(gateWords, 0);
    return await Promise.all(results);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

t.test('four threads at once: exactly the limit is admitted', async (t) => {
  const buffer = SharedMemoryCounters.createBuffer(1024);
  const passed = await race(buffer, 'admit', 4, 600);
  t.equal(sum(passed), 1000, `1000 of 2400 admitted (${passed.join(' + ')})`);
  const c = new SharedMemoryCounters(buffer, fakeClock(NOON));
  const minute = String(Math.floor(NOON / 60_000));
  // A minute counter is stored under `key:minute`, which readPeriods reads like a period counter.
  t.same(await c.readPeriods([{ key: '{p:t}:rpm:k', periodId: minute }]), [1000], 'the counter reads 1000');
});

t.test('four threads at once: exactly the rate limit is allowed', async (t) => {
  const buffer = SharedMemoryCounters.createBuffer(1024);
  const passed = await race(buffer, 'admitRate', 4, 600);
  t.equal(sum(passed), 500, `500 of 2400 allowed (${passed.join(' + ')})`);
  const c = new SharedMemoryCounters(buffer, fakeClock(NOON));
  t.match(await c.admitRate('{r:k}:rate', { requestsPerMinute: 500, burst: 500 }), {
    allowed: false,
    remaining: 0,
    refusedBy: 'minute',
  });
});

t.test('four threads at once: one claim', async (t) => {
  const buffer = SharedMemoryCounters.createBuffer(1024);
  const passed = await race(buffer, 'claimMark', 4, 600);
  t.equal(sum(passed), 1, 'claimed once');
  t.same(new SharedMemoryCounters(buffer, fakeClock(NOON)).readMarks(['{p:t}:refusal']), [NOON + 60_000]);
});

/** A small deterministic random source (mulberry32). */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

t.test('the same answers as the single-thread store, call for call', async (t) => {
  for (const seed of [1, 2, 3]) {
    const rnd = random(seed);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
    const int = (n: number) => Math.floor(rnd() * n);
    const clock = fakeClock(NOON);
    const memory = new MemoryCounters(clock);
    const shared = new SharedMemoryCounters(SharedMemoryCounters.createBuffer(4096), clock);
    const keys = ['{p:a}:x', '{p:a}:y', '{p:b}:z'];
    const periods = ['total', 'daily', 'monthly'] as const;
    const periodIds = () => ['total', `d${Math.floor(clock.now() / 86_400_000)}`];
    const rules = [
      { requestsPerMinute: 5, burst: 2 },
      { requestsPerMinute: 60, burst: 1 },
      { requestsPerMinute: 7, burst: 7 },
    ];
    type Call = (c: MemoryCounters | SharedMemoryCounters) => unknown;
    // Each draws its arguments once, then makes the same call on both stores.
    const calls: Record<string, () => Call> = {
      admit() {
        const checks = {
          minute: keys
            .slice(0, 1 + int(3))
            .map((key) => ({ key, amount: int(4), limit: rnd() < 0.2 ? undefined : 3 + int(6) })),
          period: keys.slice(0, int(3)).map((key) => ({
            key,
            period: pick(periods),
            amount: int(5),
            limit: rnd() < 0.2 ? undefined : 10 + int(20),
          })),
        };
        return (c) => c.admit(checks);
      },
      settle() {
        const settlement = {
          minute: { minute: Math.floor(clock.now() / 60_000) - int(2), adjustments: [{ key: pick(keys), delta: -1 }] },
          period: [{ key: pick(keys), periodId: pick(periodIds()), delta: -2 }],
        };
        return (c) => c.settle(settlement);
      },
      seedPeriod() {
        const [key, id] = [pick(keys), pick(periodIds())];
        return (c) => c.seedPeriod(key, id, 4);
      },
      readPeriods() {
        const entries = keys.map((key) => ({ key, periodId: pick(periodIds()) }));
        return (c) => c.readPeriods(entries);
      },
      extendMark() {
        const [key, ms] = [pick(keys), int(5000)];
        return (c) => c.extendMark(key, ms);
      },
      claimMark() {
        const [key, ms] = [pick(keys), int(5000) + 1];
        return (c) => c.claimMark(key, ms);
      },
      readMarks: () => (c) => c.readMarks(keys),
      admitRate() {
        const [key, rule] = [pick(keys), pick(rules)];
        return (c) => c.admitRate(key, rule);
      },
      takeLease() {
        const [key, id, ms] = [pick(keys), pick(['r1', 'r2', 'r3']), int(3000) + 1];
        return (c) => c.takeLease(key, id, ms);
      },
      releaseLease() {
        const [key, id] = [pick(keys), pick(['r1', 'r2', 'r3'])];
        return (c) => c.releaseLease(key, id);
      },
      countLeases: () => (c) => c.countLeases(keys),
      addSample() {
        const [key, field, sample] = [pick(keys), pick(['f', 'g']), int(100)];
        return (c) => c.addSample(key, field, sample, 0.25, 4000);
      },
      readAverages() {
        const key = pick(keys);
        return (c) => c.readAverages(key, ['f', 'g', 'h']);
      },
    };
    const names = Object.keys(calls);
    const mismatches: string[] = [];
    for (let step = 0; step < 20_000 && mismatches.length < 5; step++) {
      const r = rnd();
      // Mostly small steps, sometimes minutes or a day. (A clock stepping back past an entry's end may find it in one
      // store and not the other: each drops expired entries at its own moments.)
      if (r < 0.3) clock.advance(int(500));
      else if (r < 0.33) clock.advance(int(200_000));
      else if (r < 0.331) clock.advance(int(90_000_000));
      const name = pick(names);
      const call = calls[name]();
      const [a, b] = [await call(memory), await call(shared)];
      if (JSON.stringify(a) !== JSON.stringify(b))
        mismatches.push(`step ${step} ${name}: memory ${JSON.stringify(a)}, shared ${JSON.stringify(b)}`);
    }
    t.same(mismatches, [], `seed ${seed}: 20,000 calls answered alike`);
  }
});

/** Keys whose digests have home slot `home` in a table of `capacity` slots. */
function keysAt(home: number, capacity: number, count: number, kind: Kind = Kind.plain): string[] {
  const found: string[] = [];
  for (let i = 0; found.length < count; i++)
    if ((digest(`k${i}`, kind)[0] & (capacity - 1)) === home) found.push(`k${i}`);
  return found;
}

t.test('the table: expired slots are reclaimed, a full table evicts rate limits or refuses', async (t) => {
  const table = new SharedTable(SharedTable.createBuffer(16));
  t.equal(table.capacity, 16);
  t.equal(table.maxEntries, 12, 'at most 3/4 of the slots hold entries');
  t.equal(SharedTable.bytes(131_072), 6_291_520, 'the default table: 6 MiB and a 64-byte header');
  const now = NOON;
  const insert = (key: string, at: number, expiresAt: number, kind: Kind = Kind.plain) =>
    table.withLock(() => table.insert(digest(key, kind), at, expiresAt));
  const find = (key: string, at: number, kind: Kind = Kind.plain) =>
    table.withLock(() => table.find(digest(key, kind), at));

  for (let i = 0; i < 12; i++) insert(`old${i}`, now, now + 1000);
  t.equal(table.used, 12, 'full');
  t.throws(() => insert('one-more', now, now + 1000), CountersFullError, 'full of live entries: refused');
  t.equal(table.used, 12, 'and nothing changed');
  for (let i = 0; i < 12; i++) insert(`new${i}`, now + 1000, now + 5000);
  t.equal(table.used, 12, 'the expired entries made room');
  t.ok(
    Array.from({ length: 12 }, (_, i) => find(`new${i}`, now + 1000)).every((s) => s >= 0),
    'every new entry is found',
  );
  t.equal(find('old0', now + 1000), -1, 'an expired entry reads as absent');

  t.throws(
    () => insert('one-more', now + 1000, now + 5000),
    /the shared counters store is full: 12 live entries in 16 slots/,
    'a clear error',
  );

  const rates = new SharedTable(SharedTable.createBuffer(16));
  for (let i = 0; i < 12; i++) rates.withLock(() => rates.insert(digest(`rate${i}`, Kind.rate), now, now + 60_000));
  rates.withLock(() => rates.insert(digest('a-counter'), now, now + 60_000));
  t.ok(rates.used <= 12, `full of rate limits: some were evicted for a counter (${rates.used} entries)`);
  t.ok(rates.withLock(() => rates.find(digest('a-counter'), now)) >= 0, 'the counter is in');

  const c = new SharedMemoryCounters(SharedMemoryCounters.createBuffer(16), fakeClock(now));
  for (let i = 0; i < 12; i++) await c.claimMark(`mark${i}`, 60_000);
  await t.rejects(c.claimMark('one-more', 60_000), CountersFullError, 'the store refuses when full of marks');
  await t.rejects(
    c.admit({
      minute: [
        { key: 'a', amount: 1 },
        { key: 'b', amount: 1 },
      ],
      period: [],
    }),
    CountersFullError,
  );
  t.same(c.readMarks(['mark0', 'mark11']), [now + 60_000, now + 60_000], 'the marks are kept');
});

t.test('the table: deletion keeps the later entries of a cluster findable', async (t) => {
  const table = new SharedTable(SharedTable.createBuffer(16));
  const now = NOON;
  const at = (key: string) => table.withLock(() => table.find(digest(key), now));
  const add = (key: string) => table.withLock(() => table.insert(digest(key), now, now + 60_000));
  const remove = (key: string) => table.withLock(() => table.remove(table.find(digest(key), now)));
  // Five keys at home 14: they fill 14, 15 and wrap to 0, 1, 2; two keys at home 0 come after them.
  const colliding = keysAt(14, 16, 5);
  const atZero = keysAt(0, 16, 2);
  for (const k of [...colliding, ...atZero]) add(k);
  t.same([...colliding, ...atZero].map(at), [14, 15, 0, 1, 2, 3, 4], 'linear probing: each in the next free slot');
  remove(colliding[0]);
  t.equal(at(colliding[0]), -1, 'the deleted key is gone');
  t.same(
    [...colliding.slice(1), ...atZero].map((k) => at(k) >= 0),
    Array(6).fill(true),
    'every later key is still found',
  );
  t.same(atZero.map(at), [2, 3], 'the keys at home 0 moved back across the wrap towards their home');
  remove(colliding[2]);
  t.same(
    [colliding[1], colliding[3], colliding[4], ...atZero].map((k) => at(k) >= 0),
    Array(5).fill(true),
    'also after deleting from the middle',
  );
  t.equal(table.used, 5);
  remove(atZero[0]);
  t.ok(at(atZero[1]) >= 0);
  t.equal(table.used, 4);

  const expiring = keysAt(5, 16, 3);
  table.withLock(() => table.insert(digest(expiring[0]), now, now + 10));
  table.withLock(() => table.insert(digest(expiring[1]), now, now + 60_000));
  table.withLock(() => table.insert(digest(expiring[2]), now, now + 60_000));
  t.equal(
    table.withLock(() => table.find(digest(expiring[2]), now + 10)),
    6,
    'probing over an expired entry reclaims it: the later one moves back',
  );
  t.equal(table.used, 6);
});

t.test('leases and averages: every instance over one buffer sees them', async (t) => {
  const clock = fakeClock(NOON);
  const buffer = SharedMemoryCounters.createBuffer(1024);
  const [one, two] = [new SharedMemoryCounters(buffer, clock), new SharedMemoryCounters(buffer, clock)];
  await one.takeLease('busy', 'r1', 1000);
  await two.takeLease('busy', 'r2', 1000);
  await two.takeLease('busy', 'r3', 5000);
  await two.takeLease('other', 'r4', 1000);
  t.same(one.countLeases(['busy', 'other', 'none']), [3, 1, 0], 'counts add up, answered synchronously');
  t.same(two.countLeases(['busy', 'other', 'none']), [3, 1, 0]);
  await two.releaseLease('busy', 'r2');
  await two.releaseLease('busy', 'r2');
  t.same(one.countLeases(['busy']), [2], 'a release ends the lease once');
  await one.releaseLease('busy', 'r3');
  t.same(one.countLeases(['busy']), [2], 'an instance ends only the leases it took');

  clock.advance(1000);
  t.same(two.countLeases(['busy', 'other']), [2, 0], "another instance's expired lease counts until it counts");
  t.same(one.countLeases(['busy']), [1], 'its owner counted: gone');
  t.same(two.countLeases(['busy']), [1]);
  clock.advance(4000);
  t.same(one.countLeases(['busy']), [0], 'every lease under the key has run out: the count is gone');
  await two.takeLease('busy', 'r5', 1000);
  t.same(two.countLeases(['busy']), [1], 'a new lease counts afresh; the old ones are not taken off it');
  await one.takeLease('busy', 'r6', 1000);
  await one.close();
  t.same(two.countLeases(['busy']), [1], 'a closed instance gives its leases back');

  await one.addSample('lat', 'a', 100, 0.5, 10_000);
  await two.addSample('lat', 'a', 200, 0.5, 10_000);
  t.same(one.readAverages('lat', ['a', 'b']), [150, null], 'one average across instances');
  clock.advance(9_000);
  await two.addSample('lat', 'b', 40, 0.5, 10_000);
  clock.advance(9_000);
  t.same(one.readAverages('lat', ['a', 'b']), [150, 40], 'a sample of any field keeps them all');
  clock.advance(1_000);
  t.same(two.readAverages('lat', ['a', 'b']), [null, null], 'no sample for the ttl: dropped together');
  await one.addSample('lat', 'b', 10, 0.5, 10_000);
  t.same(two.readAverages('lat', ['a', 'b']), [null, 10], 'a new life of the key starts from nothing');
});

t.test('the rate limit: a clock that steps back neither refills nor opens a window', async (t) => {
  const MINUTE = 60_000;
  const clock = fakeClock(0);
  const c = new SharedMemoryCounters(SharedMemoryCounters.createBuffer(64), clock);
  const take = (key: string, rule: { requestsPerMinute: number; burst: number }, at: number) => {
    clock.set(at);
    return c.admitRate(key, rule);
  };
  const small = { requestsPerMinute: 60, burst: 1 };
  t.equal((await take('k', small, MINUTE + 10_000)).allowed, true);
  t.equal((await take('k', small, MINUTE + 5_000)).allowed, false, 'earlier time: no slot');
  t.equal((await take('k', small, MINUTE + 10_999)).allowed, false, 'still measured from the latest time seen');
  t.equal((await take('k', small, MINUTE + 11_000)).allowed, true);
  const once = { requestsPerMinute: 1, burst: 1 };
  t.equal((await take('w', once, 2 * MINUTE)).allowed, true);
  t.match(
    await take('w', once, MINUTE + 30_000),
    { allowed: false, refusedBy: 'minute', resetAt: 3 * MINUTE },
    'back in an earlier minute: the later window still counts',
  );
  t.equal((await take('w', once, 3 * MINUTE)).allowed, true, 'the next minute');
  t.match(
    await take('w', once, 4 * MINUTE + 30_000),
    { allowed: true },
    'the window over and the bucket full: a new one',
  );
  t.match(
    await take('w', once, 3 * MINUTE + 40_000),
    { allowed: false, refusedBy: 'minute', resetAt: 5 * MINUTE },
    'a step back of 50 s still finds the later window',
  );
});
