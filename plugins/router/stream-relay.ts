// The client's side of an upstream stream: passes chunks on, records usage, strips the usage chunk the client did not
// ask for, and after a client disconnect keeps reading (bounded) so usage, budget and trace can be settled. A stream
// cut after its first chunk, whose usage is not a count, or that ended without usage, is booked at an estimate: the
// prompt (the provider's count when a chunk carried a sane one) and the output streamed so far.
import {
  type ChatChunk,
  choicesAnswerChars,
  costOf,
  type RequestContext,
  type Usage,
} from '../../src/plugin-api/index.ts';
import { bookEstimatedUsage, bookMissingUsage, takeProviderUsage } from './provider-usage.ts';

/** How long and how far the upstream is read after the client left (`disconnect_drain_ms`, `_chunks`). */
export interface DrainLimits {
  ms: number;
  chunks: number;
}

/**
 * Relays from the first chunk on. `idleTimer` (the attempt's timeout) is refreshed per chunk, so it bounds each gap;
 * `controller` aborts the upstream call when the drain time is over.
 */
export async function* relay(
  ctx: RequestContext,
  first: ChatChunk,
  iterator: AsyncIterator<ChatChunk>,
  controller: AbortController,
  idleTimer: NodeJS.Timeout,
  drain: DrainLimits,
): AsyncGenerator<ChatChunk> {
  let drainTimer: NodeJS.Timeout | undefined;
  let drained = 0;
  const onAbort = () => {
    drainTimer = setTimeout(() => controller.abort(new Error('client disconnected; drain time is over')), drain.ms);
  };
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  // The last usage the provider sent, checked (undefined: not a count), and the last sane one.
  let lastUsage: Usage | undefined;
  let saneUsage: Usage | undefined;
  let usageSeen = false;
  let outputChars = 0;
  // False when the drain stopped reading (disconnect_drain_chunks): what the provider went on to produce is unknown,
  // so the reservation stands.
  let ended = false;
  const estimatedPrompt = () => saneUsage?.prompt_tokens ?? ctx.estimate().promptTokens;
  try {
    let chunk: ChatChunk | undefined = first;
    while (chunk !== undefined) {
      if (chunk.usage) {
        usageSeen = true;
        lastUsage = ctx.usage = takeProviderUsage(ctx, chunk.usage);
        saneUsage = lastUsage ?? saneUsage;
      }
      outputChars += choicesAnswerChars(chunk.choices, 'delta');
      let pass = true;
      if (!ctx.clientWantsUsage && 'usage' in chunk) {
        if (chunk.usage && (!Array.isArray(chunk.choices) || chunk.choices.length === 0)) pass = false;
        else chunk = withoutUsage(chunk);
      }
      if (pass) yield chunk;
      if (ctx.clientAborted && ++drained > drain.chunks) break;
      let next: IteratorResult<ChatChunk>;
      try {
        next = await iterator.next();
      } catch (err) {
        bookEstimatedUsage(ctx, 'stream_interrupted', estimatedPrompt(), outputChars, ctx.price);
        throw err;
      }
      idleTimer.refresh();
      ended = next.done === true;
      chunk = ended ? undefined : next.value;
    }
    if (lastUsage) ctx.cost = costOf(lastUsage, ctx.price);
    else if (usageSeen) bookEstimatedUsage(ctx, 'provider_usage_invalid', estimatedPrompt(), outputChars, ctx.price);
    else if (ended) bookMissingUsage(ctx, estimatedPrompt(), outputChars, ctx.price);
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    clearTimeout(drainTimer);
    clearTimeout(idleTimer);
    await iterator.return?.();
  }
}

/** A copy, not an edit in place: the provider's text of the original chunk, written when no plugin edits, still has
 * the usage (src/gateway/providers/openai/wire-text.ts). */
function withoutUsage(chunk: ChatChunk): ChatChunk {
  const { usage: _usage, ...rest } = chunk;
  return rest;
}
