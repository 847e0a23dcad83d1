// A password check inside the sign-in limiter's bounds (src/observability/users/sign-in-limiter.ts), shared by sign-in and the
// password change: one of the few hashing slots (else 429 with Retry-After 1), and the email's failure count (else
// 429 until the oldest failure leaves the window). The attempt counts as a failure until the check succeeds.
import type { SignInLimiter } from '../../src/observability/users/sign-in-limiter.ts';
import { DashboardApiError } from './dashboard-error.ts';

/** What `check` answered; undefined (a failure, left counted) when it answered nothing. */
export async function limitedPasswordCheck<T>(
  limiter: SignInLimiter,
  email: string,
  now: number,
  check: () => Promise<T | undefined>,
): Promise<T | undefined> {
  if (!limiter.startHash())
    throw new DashboardApiError('rate_limited', 'Too many sign-ins in progress; try again in 1 s', { retryAfter: 1 });
  let result: T | undefined;
  try {
    const wait = limiter.reserve(email, now);
    if (wait > 0)
      throw new DashboardApiError('rate_limited', `Too many failed sign-ins for this email; try again in ${wait} s`, {
        retryAfter: wait,
      });
    result = await check();
  } finally {
    limiter.endHash();
  }
  if (result !== undefined) limiter.recordSuccess(email);
  return result;
}
