// Failed dashboard sign-ins per email (src/observability/users/sign-in-limiter.ts): refused at the limit and not one before, free
// again when the oldest failure leaves the window, cleared by a success, emails compared in any case; attempts reserved
// before their hash; the bound on concurrent hashes.
import t from 'tap';
import { SignInLimiter } from '../../src/observability/users/sign-in-limiter.ts';

const limits = { maxFailures: 3, windowMs: 60_000 };

t.test('the limit and its boundary', async (t) => {
  const limiter = new SignInLimiter(limits);
  for (let i = 0; i < 2; i++) limiter.recordFailure('a@example.com', 1_000 + i * 1_000);
  t.equal(limiter.retryAfter('a@example.com', 3_000), 0, 'two failures: still allowed');
  limiter.recordFailure('A@Example.com', 3_000);
  t.equal(limiter.retryAfter('a@example.com', 3_000), 58, 'three: wait until the first leaves the window');
  t.equal(limiter.retryAfter('b@example.com', 3_000), 0, 'other emails are not affected');
  t.equal(limiter.retryAfter('a@example.com', 60_999), 1);
  t.equal(limiter.retryAfter('a@example.com', 61_000), 0, 'the first failure left the window');
});

t.test('a success clears the count', async (t) => {
  const limiter = new SignInLimiter(limits);
  for (let i = 0; i < 3; i++) limiter.recordFailure('a@example.com', 0);
  t.ok(limiter.retryAfter('a@example.com', 0) > 0);
  limiter.recordSuccess(' A@example.com ');
  t.equal(limiter.retryAfter('a@example.com', 0), 0);
});

t.test('an attempt is counted when it is let through, before its password is checked', async (t) => {
  const limiter = new SignInLimiter({ maxFailures: 10, windowMs: 60_000 });
  const waits = Array.from({ length: 15 }, () => limiter.reserve('a@example.com', 0));
  t.equal(waits.filter((w) => w === 0).length, 10, 'ten parallel attempts pass, before any has failed');
  t.same(waits.slice(10), [60, 60, 60, 60, 60], 'the rest wait for the window');
  t.equal(limiter.retryAfter('a@example.com', 0), 60);
  limiter.recordSuccess('a@example.com');
  t.equal(limiter.reserve('a@example.com', 0), 0, 'a success clears the reservations');
});

t.test('at most maxConcurrent hashes at once', async (t) => {
  const limiter = new SignInLimiter();
  t.equal(limiter.limits.maxConcurrent, 4);
  t.same(
    Array.from({ length: 5 }, () => limiter.startHash()),
    [true, true, true, true, false],
  );
  limiter.endHash();
  t.equal(limiter.startHash(), true, 'a slot given back is taken again');
  t.equal(limiter.startHash(), false);
});
