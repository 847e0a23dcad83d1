import type { DeploymentConfig } from '../../src/plugin-api/index.ts';
import type { DeploymentFigures } from './routing-board.ts';
import { weightedChoice } from './weighted-choice.ts';

/** The share of requests sent to a deployment other than the fastest, so every figure stays current. */
export const EXPLORATION_SHARE = 0.05;

export type LatencyReason = 'lowest_latency' | 'exploration' | 'unmeasured';

/**
 * The candidate with the lowest recent latency, except that a candidate with no figure yet is tried first and
 * EXPLORATION_SHARE of requests go to the others (by weight).
 */
export function lowestLatency(
  candidates: readonly DeploymentConfig[],
  latencies: DeploymentFigures,
  random: () => number = Math.random,
): { d: DeploymentConfig; reason: LatencyReason } {
  const unmeasured = candidates.filter((d) => !latencies.has(d.id));
  if (unmeasured.length > 0) return { d: weightedChoice(unmeasured, random), reason: 'unmeasured' };
  let fastest = candidates[0];
  for (const d of candidates) if (latencies.get(d.id)! < latencies.get(fastest.id)!) fastest = d;
  if (candidates.length > 1 && random() < EXPLORATION_SHARE) {
    return {
      d: weightedChoice(
        candidates.filter((d) => d !== fastest),
        random,
      ),
      reason: 'exploration',
    };
  }
  return { d: fastest, reason: 'lowest_latency' };
}
