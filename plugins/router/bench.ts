// Bench state as one request sees it: read once per group, added to as this request benches deployments. While the
// counters store cannot be reached the request routes as if nothing were benched (its own failures still move it on
// at once), as the cache treats a store it cannot reach.
import {
  type BenchBoard,
  type BenchedDeployments,
  type Clock,
  CountersUnavailableError,
  type DeploymentConfig,
  type ModelGroupConfig,
  type RequestContext,
} from '../../src/plugin-api/index.ts';

/** The group's benched deployments; in-process answered synchronously, so the hot path pays no promise. */
export function benchedIn(
  bench: BenchBoard,
  ctx: RequestContext,
  group: ModelGroupConfig,
): BenchedDeployments | Promise<BenchedDeployments> {
  const unreadable = (err: unknown): BenchedDeployments => {
    if (!(err instanceof CountersUnavailableError)) throw err;
    ctx.annotations['gateway.bench_error'] = err.message;
    return new Map();
  };
  const read = bench.benched(group);
  return read instanceof Promise ? read.catch(unreadable) : read;
}

/** Benching the only deployment left in a group without fallback would just turn provider errors into 503s. */
export async function benchIfAllowed(
  bench: BenchBoard,
  clock: Clock,
  ctx: RequestContext,
  group: ModelGroupConfig,
  d: DeploymentConfig,
  benched: BenchedDeployments,
): Promise<void> {
  if (group.routing.bench_ms === 0) return;
  if (group.fallback === undefined) {
    const othersUp = group.deployments.some((o) => o.id !== d.id && o.weight > 0 && !benched.has(o.id));
    if (!othersUp) return;
  }
  benched.set(d.id, clock.now() + group.routing.bench_ms);
  // Written before the request goes on, so every replica skips the deployment from the next request on.
  await bench.bench(group, d.id, group.routing.bench_ms).catch((err: unknown) => {
    if (!(err instanceof CountersUnavailableError)) throw err;
    ctx.annotations['gateway.bench_error'] = err.message;
    ctx.log.warn('router: bench state not written; the counters store is unavailable', {
      requestId: ctx.id,
      deployment: d.id,
      error: err.message,
    });
  });
}
