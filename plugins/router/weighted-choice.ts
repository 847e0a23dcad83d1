import type { DeploymentConfig } from '../../src/plugin-api/index.ts';

/** Picks one deployment with probability proportional to its weight (all weights are > 0 here). */
export function weightedChoice(
  candidates: readonly DeploymentConfig[],
  random: () => number = Math.random,
): DeploymentConfig {
  if (candidates.length === 1) return candidates[0];
  let total = 0;
  for (const d of candidates) total += d.weight;
  let point = random() * total;
  for (const d of candidates) {
    point -= d.weight;
    if (point < 0) return d;
  }
  return candidates[candidates.length - 1];
}
