// The admission estimate of a request (docs/plugins.md, The admission estimate), worked out once per request: rate
// limits reserve its tokens, budgets its worst-case cost, and the router prices a stream with it until the
// provider's usage arrives.
import {
  estimateChatPromptTokens,
  estimateEmbeddingTokens,
  outputAllowance,
} from '../../platform/pricing/token-estimate.ts';
import type { AdmissionEstimate, JsonObject, RouteName } from '../../plugin-api/contract.ts';

export function admissionEstimate(route: RouteName, body: JsonObject | undefined): AdmissionEstimate {
  if (route === 'embeddings') return { promptTokens: estimateEmbeddingTokens(body?.input), outputTokens: 0 };
  if (route === 'models' || body === undefined) return { promptTokens: 0, outputTokens: 0 };
  return { promptTokens: estimateChatPromptTokens(body.messages), outputTokens: outputAllowance(body) };
}

/** `RequestContext.estimate`: the estimate of the body on the first call, the same frozen object after it. */
export function memoizedEstimate(route: RouteName, body: JsonObject | undefined): () => AdmissionEstimate {
  let estimate: AdmissionEstimate | undefined;
  return () => (estimate ??= Object.freeze(admissionEstimate(route, body)));
}
