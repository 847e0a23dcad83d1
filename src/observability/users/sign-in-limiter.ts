// Dashboard sign-in attempts per email, in this process: after `maxFailures` within `windowMs` the email is refused
// until the oldest of them leaves the window. An attempt counts as a failure from the moment it is let through, before
// its password is hashed, so parallel attempts cannot pass the check together; a success clears the count. Apart from
// that, at most `maxConcurrent` sign-ins hash at once, so a flood cannot fill libuv's thread pool (which DNS lookups
// and file reads share). Replicas count apart (docs/dashboard.md).

export interface SignInLimits {
  maxFailures: number;
  windowMs: number;
  maxConcurrent: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { maxFailures: 10, windowMs: 15 * 60_000, maxConcurrent: 4 };

// Emails tracked at most; beyond it the stalest is forgotten, so a spray of made-up emails cannot grow memory.
const MAX_TRACKED = 10_000;

export class SignInLimiter {
  readonly limits: SignInLimits;
  private readonly failures = new Map<string, number[]>();
  private running = 0;

  constructor(limits: Partial<SignInLimits> = {}) {
    this.limits = { ...DEFAULT_SIGN_IN_LIMITS, ...limits };
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
    return Math.max(
      1,
      Math.ceil((recent[recent.length - this.limits.maxFailures] + this.limits.windowMs - now) / 1000),
    );
  }

  recordFailure(email: string, now: number): void {
    const key = email.trim().toLowerCase();
    const recent = this.recent(key, now);
    this.failures.delete(key);
    this.failures.set(key, [...recent, now]);
    if (this.failures.size > MAX_TRACKED) this.failures.delete(this.failures.keys().next().value!);
  }

  /** Lets an attempt through, counted as a failure until `recordSuccess`; else the seconds to wait (never 0). */
  reserve(email: string, now: number): number {
    const wait = this.retryAfter(email, now);
    if (wait === 0) this.recordFailure(email, now);
    return wait;
  }

  recordSuccess(email: string): void {
    this.failures.delete(email.trim().toLowerCase());
  }

  /** Takes one of the `maxConcurrent` hashing slots; false when all are taken. Give it back with `endHash`. */
  startHash(): boolean {
    if (this.running >= this.limits.maxConcurrent) return false;
    this.running++;
    return true;
  }

  endHash(): void {
    this.running--;
  }
}
