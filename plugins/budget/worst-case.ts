// What a request may cost at most, before it runs: its prompt estimate and output allowance (spec rule 5) at the
// highest price among the deployments that may serve it (its group and the fallback chain).
import type { DeploymentConfig, PriceConfig } from '../../src/config/types.ts';
import type { RequestContext } from '../../src/pipeline/types.ts';
import { costOfTokens } from '../../src/pricing/cost.ts';
import {
  estimateChatPromptTokens,
  estimateEmbeddingTokens,
  outputAllowance,
} from '../../src/pricing/token-estimate.ts';

export type WorstCase = { usd: number } | { unpriced: DeploymentConfig };

export function worstCaseCost(
  ctx: RequestContext,
  candidates: readonly DeploymentConfig[],
  priceOf: (d: DeploymentConfig) => PriceConfig | undefined,
): WorstCase {
  const body = ctx.body ?? {};
  const embeddings = ctx.route === 'embeddings';
  const prompt = embeddings ? estimateEmbeddingTokens(body.input) : estimateChatPromptTokens(body.messages);
  const output = embeddings ? 0 : outputAllowance(body);
  let usd = 0;
  for (const d of candidates) {
    const price = priceOf(d);
    if (!price) return { unpriced: d };
    usd = Math.max(usd, costOfTokens(prompt, output, price));
  }
  return { usd };
}
