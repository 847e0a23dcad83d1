// The in-process token bucket of the REST API (src/ratelimit/memory-token-bucket.ts): exact refill, the reset and
// retry-after it reports, a clock stepping back, and the bound on how many buckets it keeps.
import t from 'tap';
import { memoryTokenBucket } from '../../src/ratelimit/memory-token-bucket.ts';

const rule = { requestsPerMinute: 1000, burst: 100 };

t.test('a new bucket starts full; refill is exact at one token per 60,000 / rate ms', async (t) => {
  const limiter = memoryTokenBucket();
  let d = await limiter.take('k', rule, 0);
  t.same(d, { allowed: true, limit: 100, remaining: 99, resetAt: 60, retryAfterMs: 0 });
  for (let i = 0; i < 99; i++) d = await limiter.take('k', rule, 0);
  t.same(d, { allowed: true, limit: 100, remaining: 0, resetAt: 6000, retryAfterMs: 0 });
  t.same(await limiter.take('k', rule, 0), { allowed: false, limit: 100, remaining: 0, resetAt: 6000, retryAfterMs: 60 });
  t.same(await limiter.take('k', rule, 30), { allowed: false, limit: 100, remaining: 0, resetAt: 6000, retryAfterMs: 30 }, 'half a token');
  t.equal((await limiter.take('k', rule, 60)).allowed, true, 'one token after 60 ms');
  t.equal((await limiter.take('k', rule, 60)).allowed, false);
  // 1,000 steps of 60 ms each bring back exactly one token each: no drift from fractions.
  const allowed: boolean[] = [];
  for (let i = 2; i <= 1001; i++) allowed.push((await limiter.take('k', rule, i * 60)).allowed);
  t.same(allowed, Array(1000).fill(true));
  t.equal((await limiter.take('k', rule, 1001 * 60)).allowed, false);
});

t.test('a rate that does not divide 60,000 still refills exactly', async (t) => {
  const limiter = memoryTokenBucket();
  const odd = { requestsPerMinute: 7, burst: 1 };
  t.equal((await limiter.take('k', odd, 0)).allowed, true);
  const refused = await limiter.take('k', odd, 8571);
  t.equal(refused.allowed, false, '8,571 ms is just short of 60,000 / 7');
  t.equal(refused.retryAfterMs, 1);
  t.equal((await limiter.take('k', odd, 8572)).allowed, true);
});

t.test('a clock that steps back neither refills nor breaks the bucket', async (t) => {
  const limiter = memoryTokenBucket();
  const small = { requestsPerMinute: 60, burst: 1 };
  t.equal((await limiter.take('k', small, 10_000)).allowed, true);
  t.equal((await limiter.take('k', small, 5_000)).allowed, false, 'earlier time: no tokens');
  t.equal((await limiter.take('k', small, 10_999)).allowed, false, 'still measured from the latest time seen');
  t.equal((await limiter.take('k', small, 11_000)).allowed, true);
});

t.test('the number of buckets is bounded: full buckets go first, then the least recently used', async (t) => {
  const limiter = memoryTokenBucket({ maxBuckets: 10 });
  const small = { requestsPerMinute: 60, burst: 2 };
  for (let i = 0; i < 10; i++) await limiter.take(`k${i}`, small, 0);
  t.equal(limiter.size, 10);
  // At 1 s every bucket has refilled (1 token used, 1 s per token): all full, all dropped for the new one.
  await limiter.take('new', small, 1000);
  t.equal(limiter.size, 1, 'full buckets carry no state and are dropped');

  const busy = memoryTokenBucket({ maxBuckets: 10 });
  for (let i = 0; i < 10; i++) await busy.take(`k${i}`, small, 0);
  await busy.take('k0', small, 0);
  await busy.take('new', small, 0);
  t.ok(busy.size <= 10, `bounded (${busy.size})`);
  const k0 = await busy.take('k0', small, 0);
  t.equal(k0.allowed, false, 'the most recently used bucket was kept (it is empty)');
  const k1 = await busy.take('k1', small, 0);
  t.equal(k1.remaining, 1, 'the least recently used was dropped and starts full again');
});
