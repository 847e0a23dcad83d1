// The REST API's rate limit held in-process (src/ratelimit/memory-rate-limiter.ts, the in-process counters store): a
// calendar-minute window of `requestsPerMinute` that the headers report, a burst bound refilled exactly at that rate,
// which of the two refused and when to retry, a clock stepping back, and the bound on how many keys it keeps.
import t from 'tap';
import { memoryRateLimiter } from '../../src/platform/store/counters/memory-rate-limiter.ts';

const rule = { requestsPerMinute: 1000, burst: 100 };
const MINUTE = 60_000;

t.test('the window: limit is the per-minute rate, remaining counts the minute down, reset is its end', async (t) => {
  const limiter = memoryRateLimiter();
  const at = 5 * MINUTE + 1000;
  t.same(limiter.take('k', rule, at), {
    allowed: true,
    limit: 1000,
    remaining: 999,
    resetAt: 6 * MINUTE,
    retryAfterMs: 0,
  });
  let d = limiter.take('k', rule, at);
  for (let i = 0; i < 98; i++) d = limiter.take('k', rule, at);
  t.same(
    d,
    { allowed: true, limit: 1000, remaining: 900, resetAt: 6 * MINUTE, retryAfterMs: 0 },
    '100 requests at once: the burst',
  );
  t.same(
    limiter.take('k', rule, at),
    { allowed: false, limit: 1000, remaining: 900, resetAt: 6 * MINUTE, retryAfterMs: 60, refusedBy: 'burst' },
    'the 101st waits for the burst to refill',
  );
  t.same(
    limiter.take('k', rule, at + 30),
    { allowed: false, limit: 1000, remaining: 900, resetAt: 6 * MINUTE, retryAfterMs: 30, refusedBy: 'burst' },
    'half a slot',
  );
  t.equal(limiter.take('k', rule, at + 60).remaining, 899, 'one slot 60 ms later; refused requests were not counted');
  t.equal(limiter.take('other', rule, at).remaining, 999, 'another key has its own window');
});

t.test('a full window refuses until the minute ends, whatever the burst holds', async (t) => {
  const limiter = memoryRateLimiter();
  const small = { requestsPerMinute: 10, burst: 5 };
  const statuses: boolean[] = [];
  for (let i = 0; i < 5; i++) statuses.push(limiter.take('k', small, 0).allowed);
  // One slot every 6 s after the burst: the 10th request of the minute at 30 s.
  for (let s = 6; s <= 30; s += 6) statuses.push(limiter.take('k', small, s * 1000).allowed);
  t.same(statuses, Array(10).fill(true));
  t.same(
    limiter.take('k', small, 36_000),
    { allowed: false, limit: 10, remaining: 0, resetAt: MINUTE, retryAfterMs: 24_000, refusedBy: 'minute' },
    'a burst slot is free, the window is not',
  );
  t.same(
    limiter.take('k', small, MINUTE),
    { allowed: true, limit: 10, remaining: 9, resetAt: 2 * MINUTE, retryAfterMs: 0 },
    'the next minute starts afresh',
  );
});

t.test(
  'the burst refills exactly, also across a minute boundary, so two windows cannot meet in one burst',
  async (t) => {
    const limiter = memoryRateLimiter();
    const steady = { requestsPerMinute: 1000, burst: 1 };
    // 1,000 requests 60 ms apart fill one minute exactly: no drift from fractions.
    const allowed: boolean[] = [];
    for (let i = 0; i < 1000; i++) allowed.push(limiter.take('k', steady, i * 60).allowed);
    t.same(allowed, Array(1000).fill(true));
    t.equal(limiter.take('k', steady, MINUTE).allowed, true, 'and the next one starts at once');

    let last = 0;
    for (let i = 0; i < 100; i++) last = limiter.take('edge', rule, MINUTE - 10).remaining;
    t.equal(last, 900, 'a burst of 100 at the end of a minute');
    t.match(
      limiter.take('edge', rule, MINUTE),
      { allowed: false, remaining: 1000, refusedBy: 'burst', retryAfterMs: 50 },
      'a new window does not bring a new burst',
    );

    const odd = { requestsPerMinute: 7, burst: 1 };
    t.equal(limiter.take('o', odd, 0).allowed, true);
    const refused = limiter.take('o', odd, 8571);
    t.equal(refused.allowed, false, '8,571 ms is just short of 60,000 / 7');
    t.equal(refused.retryAfterMs, 1);
    t.equal(limiter.take('o', odd, 8572).allowed, true);
  },
);

t.test('a clock that steps back neither refills nor opens a window', async (t) => {
  const limiter = memoryRateLimiter();
  const small = { requestsPerMinute: 60, burst: 1 };
  t.equal(limiter.take('k', small, MINUTE + 10_000).allowed, true);
  t.equal(limiter.take('k', small, MINUTE + 5_000).allowed, false, 'earlier time: no slot');
  t.equal(limiter.take('k', small, MINUTE + 10_999).allowed, false, 'still measured from the latest time seen');
  t.equal(limiter.take('k', small, MINUTE + 11_000).allowed, true);
  const once = { requestsPerMinute: 1, burst: 1 };
  t.equal(limiter.take('w', once, 2 * MINUTE).allowed, true);
  t.match(
    limiter.take('w', once, MINUTE + 30_000),
    { allowed: false, refusedBy: 'minute', resetAt: 3 * MINUTE },
    'back in an earlier minute: the later window still counts',
  );
});

t.test('the number of keys is bounded: keys with no state left go first, then the least recently used', async (t) => {
  const limiter = memoryRateLimiter({ maxKeys: 10 });
  const small = { requestsPerMinute: 60, burst: 2 };
  for (let i = 0; i < 10; i++) limiter.take(`k${i}`, small, 0);
  t.equal(limiter.size, 10);
  // In the next minute every bucket has refilled (1 s per slot) and every window is over: no state, all dropped.
  limiter.take('new', small, MINUTE);
  t.equal(limiter.size, 1, 'keys without state are dropped');

  const busy = memoryRateLimiter({ maxKeys: 10 });
  for (let i = 0; i < 10; i++) busy.take(`k${i}`, small, 0);
  busy.take('k0', small, 0);
  busy.take('new', small, 0);
  t.ok(busy.size <= 10, `bounded (${busy.size})`);
  t.equal(busy.take('k0', small, 0).allowed, false, 'the most recently used key was kept (its burst is spent)');
  t.equal(busy.take('k1', small, 0).remaining, 59, 'the least recently used was dropped and starts afresh');
});
