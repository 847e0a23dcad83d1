// Failed dashboard sign-ins per email (src/users/sign-in-limiter.ts): refused at the limit and not one before, free
// again when the oldest failure leaves the window, cleared by a success, emails compared in any case.
import t from 'tap';
import { SignInLimiter } from '../../src/users/sign-in-limiter.ts';

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
