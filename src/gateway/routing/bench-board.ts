// Which deployments are benched (cooling down after health signals, docs/architecture.md "Routing, retries and the
// bench") and until when. The state is kept in the counters store as marks that expire with the bench: in-process, or
// in Redis, where every replica reads it, so a deployment benched through one replica is skipped by all of them from
// the next request on. A group's state is one read (one MGET under the group's hash tag); in-process the read is
// synchronous.
import type { ModelGroupConfig } from '../../platform/config/types.ts';
import { CountersUnavailableError, groupTag, type Counters } from '../../platform/store/counters/counters.ts';
import type { BenchState } from '../../platform/telemetry/metrics.ts';
import type { BenchBoard, BenchedDeployments } from '../../plugin-api/services.ts';

/**
 * True when the router can bench one of the group's deployments: benching is on, and the group has a fallback or
 * more than one deployment in rotation (it keeps a group's last deployment in rotation; docs/decisions.md).
 */
export function canBench(group: ModelGroupConfig): boolean {
  if (group.routing.bench_ms === 0) return false;
  return group.fallback !== undefined || group.deployments.filter((d) => d.weight > 0).length > 1;
}

const benchKey = (group: ModelGroupConfig, deploymentId: string) => `${groupTag(group.name)}:bench:${deploymentId}`;

export function benchBoard(counters: Pick<Counters, 'readMarks' | 'extendMark'>): BenchBoard {
  // Group configs are replaced whole on reload, so their key lists can be kept per config object.
  const keysOf = new WeakMap<ModelGroupConfig, string[]>();
  const toMap = (group: ModelGroupConfig, ends: (number | null)[]): BenchedDeployments => {
    const out: BenchedDeployments = new Map();
    ends.forEach((end, i) => end !== null && out.set(group.deployments[i].id, end));
    return out;
  };
  return {
    benched(group) {
      // A group that can never have a benched deployment costs no read.
      if (!canBench(group)) return new Map();
      let keys = keysOf.get(group);
      if (!keys) keysOf.set(group, (keys = group.deployments.map((d) => benchKey(group, d.id))));
      const ends = counters.readMarks(keys);
      return ends instanceof Promise ? ends.then((e) => toMap(group, e)) : toMap(group, ends);
    },
    bench(group, deploymentId, ms) {
      return counters.extendMark(benchKey(group, deploymentId), ms);
    },
  };
}

/** The bench state of the groups, for /metrics and the dashboard: one read per group that can bench. */
export async function benchState(
  board: Pick<BenchBoard, 'benched'>,
  groups: readonly ModelGroupConfig[],
): Promise<BenchState> {
  try {
    const states = await Promise.all(groups.map((g) => board.benched(g)));
    return {
      benched: groups.flatMap((g, i) =>
        [...states[i]].map(([deployment, until]) => ({ group: g.name, deployment, until })),
      ),
    };
  } catch (err) {
    if (!(err instanceof CountersUnavailableError)) throw err;
    return { benched: [], error: err.message };
  }
}
