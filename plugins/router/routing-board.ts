// What the load- and latency-aware routing strategies share across replicas, kept in the counters store like the
// bench state (bench-board.ts): each deployment's requests in flight (leases, so a replica that dies mid-request
// stops being counted when its leases run out) and its recent latency (an exponentially weighted moving average).
// In-process the reads are synchronous; with Redis each is one round trip under the group's hash tag.
import { type Counters, groupTag, type ModelGroupConfig } from '../../src/plugin-api/index.ts';

/** Deployment id → a figure (requests in flight, or average latency in ms). Deployments without one are absent. */
export type DeploymentFigures = Map<string, number>;

/** Longest a request counts as in flight: one that runs longer (a long stream) stops counting then. */
export const IN_FLIGHT_LEASE_MS = 10 * 60_000;
/** The share of the moving average each new latency sample takes. */
export const LATENCY_ALPHA = 0.2;
/** A group's latency figures are dropped after this long without a sample. */
export const LATENCY_TTL_MS = 60 * 60_000;

export interface RoutingBoard {
  inFlight(group: ModelGroupConfig): DeploymentFigures | Promise<DeploymentFigures>;
  /** Counts a request in flight on the deployment until `end` (or the lease runs out). */
  start(group: ModelGroupConfig, deploymentId: string, leaseId: string): Promise<void>;
  end(group: ModelGroupConfig, deploymentId: string, leaseId: string): Promise<void>;
  latencies(group: ModelGroupConfig): DeploymentFigures | Promise<DeploymentFigures>;
  recordLatency(group: ModelGroupConfig, deploymentId: string, ms: number): Promise<void>;
}

const busyKey = (group: ModelGroupConfig, deploymentId: string) => `${groupTag(group.name)}:busy:${deploymentId}`;
const latencyKey = (group: ModelGroupConfig) => `${groupTag(group.name)}:latency`;

type BoardCounters = Pick<Counters, 'countLeases' | 'takeLease' | 'releaseLease' | 'readAverages' | 'addSample'>;

export function routingBoard(counters: BoardCounters): RoutingBoard {
  // Group configs are replaced whole on reload, so their key and id lists can be kept per config object.
  const busyKeysOf = new WeakMap<ModelGroupConfig, string[]>();
  const idsOf = new WeakMap<ModelGroupConfig, string[]>();
  const ids = (group: ModelGroupConfig) => {
    let list = idsOf.get(group);
    if (!list) idsOf.set(group, (list = group.deployments.map((d) => d.id)));
    return list;
  };
  const toFigures = (group: ModelGroupConfig, values: readonly (number | null)[]): DeploymentFigures => {
    const out: DeploymentFigures = new Map();
    const list = ids(group);
    values.forEach((v, i) => v !== null && out.set(list[i], v));
    return out;
  };
  return {
    inFlight(group) {
      let keys = busyKeysOf.get(group);
      if (!keys) busyKeysOf.set(group, (keys = group.deployments.map((d) => busyKey(group, d.id))));
      const counts = counters.countLeases(keys);
      return counts instanceof Promise ? counts.then((c) => toFigures(group, c)) : toFigures(group, counts);
    },
    start: (group, deploymentId, leaseId) =>
      counters.takeLease(busyKey(group, deploymentId), leaseId, IN_FLIGHT_LEASE_MS),
    end: (group, deploymentId, leaseId) => counters.releaseLease(busyKey(group, deploymentId), leaseId),
    latencies(group) {
      const values = counters.readAverages(latencyKey(group), ids(group));
      return values instanceof Promise ? values.then((v) => toFigures(group, v)) : toFigures(group, values);
    },
    recordLatency: (group, deploymentId, ms) =>
      counters.addSample(latencyKey(group), deploymentId, ms, LATENCY_ALPHA, LATENCY_TTL_MS),
  };
}
