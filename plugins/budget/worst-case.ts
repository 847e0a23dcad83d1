// What a request may cost at most, before it runs: its admission estimate (prompt and output allowance, docs/plugins.md
// "The admission estimate") at the highest price among the deployments that may serve it (its group and the fallback
// chain).
import {
  costOfTokens,
  type DeploymentConfig,
  type PriceConfig,
  type RequestContext,
} from '../../src/plugin-api/index.ts';

export type WorstCase = { usd: number } | { unpriced: DeploymentConfig };

export function worstCaseCost(
  ctx: RequestContext,
  candidates: readonly DeploymentConfig[],
  priceOf: (d: DeploymentConfig) => PriceConfig | undefined,
): WorstCase {
  const { promptTokens, outputTokens } = ctx.estimate();
  let usd = 0;
  for (const d of candidates) {
    const price = priceOf(d);
    if (!price) return { unpriced: d };
    usd = Math.max(usd, costOfTokens(promptTokens, outputTokens, price));
  }
  return { usd };
}
