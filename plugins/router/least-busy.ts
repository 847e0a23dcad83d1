import type { DeploymentConfig } from '../../src/plugin-api/index.ts';
import type { DeploymentFigures } from './routing-board.ts';
import { weightedChoice } from './weighted-choice.ts';

/** The candidate with the fewest requests in flight (across replicas); ties go by weight. */
export function leastBusy(
  candidates: readonly DeploymentConfig[],
  inFlight: DeploymentFigures,
  random: () => number = Math.random,
): DeploymentConfig {
  let fewest = Infinity;
  let tied: DeploymentConfig[] = [];
  for (const d of candidates) {
    const n = inFlight.get(d.id) ?? 0;
    if (n < fewest) {
      fewest = n;
      tied = [d];
    } else if (n === fewest) tied.push(d);
  }
  return weightedChoice(tied, random);
}
