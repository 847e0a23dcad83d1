// The counters store's joint admission (src/platform/store/counters/): rate-limit minute checks and budget period checks
// admitted in one step and settled in one step, in-process (a fake clock; one thread's store and the store shared by
// threads) and in Redis (a test prefix, Redis server time, one script call each, counted with MONITOR). Minute checks
// refuse before a period counter is read; nothing is added unless every check passes; the calls for one side answer as
// they did before the joint step existed.
import t, { type Test } from 'tap';
import type { AdmissionChecks, Counters } from '../../src/platform/store/counters/counters.ts';
import { MemoryCounters } from '../../src/platform/store/counters/memory-counters.ts';
import { RedisCounters } from '../../src/platform/store/counters/redis-counters.ts';
import { SharedMemoryCounters } from '../../src/platform/store/counters/shared-memory-counters.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { roomInMinute } from '../helpers/gateways.ts';
import { fakeClock } from '../helpers/plugin.ts';
import { commandKinds, monitorPrefix, type PrefixMonitor } from '../helpers/redis-monitor.ts';
import { redisTestPrefix, REDIS_URL } from '../helpers/redis.ts';

/** 12:00:20 UTC: 40 s left in the minute. */
const NOON = Date.parse('2027-01-10T12:00:20Z');

interface Backend {
  counters: Counters;
  /** The time the counters go by: the fake clock's, or this machine's for Redis (the server's is the same clock). */
  now(): number;
  /** The script calls the Redis counters sent since the last call (none in-process). */
  sent(): Promise<string[][]>;
}

const BACKENDS: Record<string, (t: Test) => Promise<Backend>> = {
  async memory() {
    return { counters: new MemoryCounters(fakeClock(NOON)), now: () => NOON, sent: async () => [] };
  },
  async shared() {
    const counters = new SharedMemoryCounters(SharedMemoryCounters.createBuffer(1024), fakeClock(NOON));
    return { counters, now: () => NOON, sent: async () => [] };
  },
  async redis(t) {
    const prefix = redisTestPrefix(t);
    const counters = new RedisCounters({ url: REDIS_URL, prefix, log: silentLogger });
    await counters.connect();
    t.teardown(() => counters.close());
    const monitor: PrefixMonitor = await monitorPrefix(t, prefix);
    await roomInMinute(5);
    return { counters, now: Date.now, sent: () => monitor.sent((mark) => counters.readMarks([mark])) };
  },
};

const rpm = (key: string, limit: number) => ({ key: `{p:t}:rpm:${key}`, amount: 1, limit });

for (const [kind, open] of Object.entries(BACKENDS)) {
  t.test(`${kind}: one step admits minute and period checks, all or nothing`, async (t) => {
    const { counters: c, now } = await open(t);
    const checks: AdmissionChecks = {
      minute: [rpm('a', 2), { key: '{p:t}:tpm:a', amount: 100, limit: 250 }],
      period: [
        { key: '{p:t}:budget:hard', period: 'total', amount: 10, limit: 25 },
        { key: '{p:t}:budget:soft', period: 'monthly', amount: 0 },
      ],
    };
    const first = await c.admit(checks);
    t.match(first, { outcome: 'unseeded', index: 0 }, 'the first period counter must be seeded');
    t.equal(first.periodIds[0], 'total');
    t.match(first.periodIds[1], /^m\d{4}-\d{2}$/, 'every period id is answered');
    await c.seedPeriod('{p:t}:budget:hard', 'total', 0);
    t.match(await c.admit(checks), { outcome: 'unseeded', index: 1 });
    await c.seedPeriod('{p:t}:budget:soft', first.periodIds[1], 7);

    const allowed = await c.admit(checks);
    t.match(allowed, { outcome: 'allowed', values: [10, 7], periodIds: first.periodIds });
    t.equal(allowed.minute, Math.floor(now() / 60_000), 'the window: the current Unix minute');
    const msLeft = 60_000 - (now() % 60_000);
    t.ok(Math.abs(allowed.msLeft - msLeft) < 1_000, `ms left in the minute (${allowed.msLeft})`);
    t.match(await c.admit(checks), { outcome: 'allowed', values: [20, 7] }, 'the unseeded rounds added nothing');

    const refused = await c.admit(checks);
    t.same(
      { ...refused, msLeft: 0 },
      { outcome: 'refused', side: 'minute', failed: 0, minute: allowed.minute, msLeft: 0, periodIds: first.periodIds },
      'the third request of rpm 2 is refused by its minute check',
    );
    t.same(
      await c.readPeriods([
        { key: '{p:t}:budget:hard', periodId: 'total' },
        { key: '{p:t}:budget:soft', periodId: first.periodIds[1] },
      ]),
      [20, 7],
      'a minute refusal charges no budget',
    );

    const overBudget = {
      minute: [rpm('b', 1)],
      period: [{ key: '{p:t}:budget:hard', period: 'total', amount: 6, limit: 25 }],
    } as const;
    t.same(
      { ...(await c.admit(overBudget)), msLeft: 0 },
      {
        outcome: 'refused',
        side: 'period',
        failed: 0,
        minute: allowed.minute,
        msLeft: 0,
        periodIds: ['total'],
        values: [20],
      },
      'a period refusal answers the values it read',
    );
    t.match(
      await c.admit({ minute: [rpm('b', 1)], period: [] }),
      { outcome: 'allowed' },
      'and added nothing to the minute: rpm 1 still has its one request',
    );
    t.match(
      await c.admit({
        minute: [rpm('b', 1)],
        period: [{ key: '{p:t}:budget:never-seeded', period: 'daily', amount: 1 }],
      }),
      { outcome: 'refused', side: 'minute', failed: 0 },
      'a minute refusal comes before an unseeded period counter',
    );
  });

  t.test(`${kind}: one step settles minute and period counters; gone counters stay gone`, async (t) => {
    const { counters: c } = await open(t);
    await c.seedPeriod('{p:t}:budget:k', 'total', 0);
    const tokens = { key: '{p:t}:tpm:k', amount: 300, limit: 400 };
    const admitted = await c.admit({
      minute: [tokens],
      period: [{ key: '{p:t}:budget:k', period: 'total', amount: 50, limit: 100 }],
    });
    t.match(admitted, { outcome: 'allowed', values: [50] });
    await c.settle({
      minute: { minute: admitted.minute, adjustments: [{ key: tokens.key, delta: -280 }] },
      period: [
        { key: '{p:t}:budget:k', periodId: 'total', delta: -45 },
        { key: '{p:t}:budget:gone', periodId: 'total', delta: 9 },
      ],
    });
    t.same(
      await c.readPeriods([
        { key: '{p:t}:budget:k', periodId: 'total' },
        { key: '{p:t}:budget:gone', periodId: 'total' },
      ]),
      [5, null],
      'the budget settled to its real cost; a counter that was gone is not created',
    );
    t.match(
      await c.admit({ minute: [{ ...tokens, amount: 380 }], period: [] }),
      { outcome: 'allowed' },
      'the tokens settled to 20: 380 more fit in 400',
    );
    t.match(await c.admit({ minute: [{ ...tokens, amount: 1 }], period: [] }), { outcome: 'refused', side: 'minute' });
  });

  t.test(`${kind}: the calls for one side answer as before`, async (t) => {
    const { counters: c } = await open(t);
    t.match(await c.admitMinute([rpm('one', 1)]), { allowed: true, failed: -1 });
    const refused = await c.admitMinute([rpm('free', 5), rpm('one', 1)]);
    t.match(refused, { allowed: false, failed: 1 });
    t.ok(refused.msLeft > 0 && refused.msLeft <= 60_000);
    const period = [{ key: '{p:t}:budget:one', period: 'daily', amount: 3, limit: 4 }] as const;
    const unseeded = await c.admitPeriod(period);
    t.match(unseeded, { outcome: 'unseeded', index: 0, periodIds: [/^d\d+$/] });
    await c.seedPeriod('{p:t}:budget:one', unseeded.periodIds[0], 0);
    t.match(await c.admitPeriod(period), { outcome: 'allowed', values: [3] });
    t.match(await c.admitPeriod(period), { outcome: 'refused', failed: 0, values: [3] });
    await c.adjustPeriod([{ key: '{p:t}:budget:one', periodId: unseeded.periodIds[0], delta: -3 }]);
    t.match(await c.admitPeriod(period), { outcome: 'allowed', values: [3] });
  });
}

t.test('redis: one script call per admission and one per settlement', async (t) => {
  const { counters: c, sent } = await BACKENDS.redis(t);
  const budget = { key: '{p:t}:budget:k', period: 'total', amount: 50, limit: 100 } as const;
  const checks = { minute: [rpm('k', 10), { key: '{p:t}:tpm:k', amount: 300, limit: 400 }], period: [budget] };
  await c.seedPeriod(budget.key, 'total', 0);
  await sent();

  const admitted = await c.admit(checks);
  t.equal(admitted.outcome, 'allowed');
  t.same(commandKinds(await sent()), ['script'], 'one script call admits four counters');

  await c.settle({
    minute: { minute: admitted.minute, adjustments: [{ key: '{p:t}:tpm:k', delta: -280 }] },
    period: [{ key: budget.key, periodId: 'total', delta: -45 }],
  });
  t.same(commandKinds(await sent()), ['script'], 'one script call settles the minute and the period counters');

  await c.settle({ minute: { minute: admitted.minute, adjustments: [{ key: '{p:t}:tpm:k', delta: 0 }] }, period: [] });
  t.same(await sent(), [], 'nothing to settle sends nothing');

  t.match(await c.admit({ ...checks, minute: [rpm('k', 1)] }), { outcome: 'refused', side: 'minute' });
  t.same(commandKinds(await sent()), ['script'], 'a refusal is one script call too');
});
