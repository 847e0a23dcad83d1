import {
  type AdmissionEstimate,
  costOfTokens,
  type DeploymentConfig,
  type PriceConfig,
} from '../../src/plugin-api/index.ts';
import { weightedChoice } from './weighted-choice.ts';

/**
 * The candidate that would charge least for this request at its admission estimate (prompt tokens and output
 * allowance), at the prices the budget uses; ties go by weight. Unpriced candidates come after every priced one.
 */
export function cheapest(
  candidates: readonly DeploymentConfig[],
  prices: ReadonlyMap<string, PriceConfig | undefined>,
  estimate: AdmissionEstimate,
  random: () => number = Math.random,
): { d: DeploymentConfig; reason: 'cheapest' | 'unpriced' } {
  let lowest = Infinity;
  let tied: DeploymentConfig[] = [];
  for (const d of candidates) {
    const price = prices.get(d.id);
    const cost = price ? costOfTokens(estimate.promptTokens, estimate.outputTokens, price) : Infinity;
    if (cost < lowest) {
      lowest = cost;
      tied = [d];
    } else if (cost === lowest) tied.push(d);
  }
  return { d: weightedChoice(tied, random), reason: lowest === Infinity ? 'unpriced' : 'cheapest' };
}
