// Failed dashboard sign-ins per email, in this process: after `maxFailures` within `windowMs` the email is refused until
// the oldest of them leaves the window. A success clears the count. Replicas count apart (docs/dashboard.md).

export interface SignInLimits {
  maxFailures: number;
  windowMs: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { maxFailures: 10, windowMs: 15 * 60_000 };

// Emails tracked at most; beyond it the stalest is forgotten, so a spray of made-up emails cannot grow memory.
const MAX_TRACKED = 10_000;

export class SignInLimiter {
  readonly limits: SignInLimits;
  private readonly failures = new Map<string, number[]>();

  constructor(limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS) {
    this.limits = limits;
  }

  private recent(email: string, now: number): number[] {
    const key = email.trim().toLowerCase();
    const kept = (this.failures.get(key) ?? []).filter((at) => at > now - this.limits.windowMs);
    if (kept.length === 0) this.failures.delete(key);
    else this.failures.set(key, kept);
    return kept;
  }

  /** Seconds until this email may try again, or 0 when it may now. */
  retryAfter(email: string, now: number): number {
    const recent = this.recent(email, now);
    if (recent.length < this.limits.maxFailures) return 0;
    return Math.max(1, Math.ceil((recent[recent.length - this.limits.maxFailures] + this.limits.windowMs - now) / 1000));
  }

  recordFailure(email: string, now: number): void {
    const key = email.trim().toLowerCase();
    const recent = this.recent(key, now);
    this.failures.delete(key);
    this.failures.set(key, [...recent, now]);
    if (this.failures.size > MAX_TRACKED) this.failures.delete(this.failures.keys().next().value!);
  }

  recordSuccess(email: string): void {
    this.failures.delete(email.trim().toLowerCase());
  }
}
