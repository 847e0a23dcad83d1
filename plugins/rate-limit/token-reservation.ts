// Tokens a request may use, reserved at admission (spec part 4B rule 5) and settled to what was really used.
import type { RequestContext } from '../../src/pipeline/types.ts';
import {
  estimateChatPromptTokens,
  estimateEmbeddingTokens,
  outputAllowance,
} from '../../src/pricing/token-estimate.ts';

/** Prompt estimate plus output allowance (max_tokens or max_completion_tokens, else 4096); embeddings have no output. */
export function tokensToReserve(ctx: RequestContext): number {
  const body = ctx.body ?? {};
  if (ctx.route === 'embeddings') return estimateEmbeddingTokens(body.input);
  return estimateChatPromptTokens(body.messages) + outputAllowance(body);
}

/**
 * Tokens to settle at: the provider's usage when known; a cache hit used no provider tokens; a request no provider
 * answered used none. A provider answer without usage (a stream cut before its usage chunk) keeps the reservation.
 */
export function tokensUsed(ctx: RequestContext, reserved: number): number {
  if (ctx.responseHeaders['x-svc-cache'] === 'hit') return 0;
  if (ctx.usage) return ctx.usage.total_tokens || ctx.usage.prompt_tokens + (ctx.usage.completion_tokens ?? 0);
  return ctx.attempts.some((a) => a.o === 'ok') ? reserved : 0;
}
