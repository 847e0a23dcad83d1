// How long the router waits before retrying a deployment it already tried (docs/architecture.md "Routing, retries and
// the bench").
import type { Clock, RequestContext } from '../../src/plugin-api/index.ts';

/**
 * Exponential from `baseMs` (doubling per step) with jitter over its upper half, at least the provider's retry hint
 * (`retry-after` / `retry-after-ms`), never more than `capMs` (the group's `routing.max_backoff_ms`).
 */
export function backoffDelay(
  step: number,
  baseMs: number,
  hintMs: number | undefined,
  capMs: number,
  random: () => number = Math.random,
): number {
  const exponential = baseMs * 2 ** step;
  const jittered = exponential / 2 + random() * (exponential / 2);
  return Math.min(capMs, Math.max(jittered, hintMs ?? 0));
}

/** Waits out a backoff. The wait is the provider's doing (its failure, its retry hint): it counts as provider time,
 * which x-svc-overhead-ms leaves out. */
export async function waitOutBackoff(clock: Clock, ms: number, ctx: RequestContext): Promise<void> {
  const from = performance.now();
  await clock.sleep(ms, ctx.signal);
  ctx.providerMs += performance.now() - from;
}
