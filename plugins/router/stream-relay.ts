// The client's side of an upstream stream: passes chunks on, records usage, strips the usage chunk the client did not
// ask for, and after a client disconnect keeps reading (bounded) so usage, budget and trace can be settled.
import type { ChatChunk, RequestContext } from '../../src/plugin-api.ts';
import { costOf } from '../../src/pricing/cost.ts';

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
  try {
    let chunk: ChatChunk | undefined = first;
    while (chunk !== undefined) {
      if (chunk.usage) ctx.usage = chunk.usage;
      let pass = true;
      if (!ctx.clientWantsUsage && 'usage' in chunk) {
        if (chunk.usage && (!Array.isArray(chunk.choices) || chunk.choices.length === 0)) pass = false;
        else chunk = withoutUsage(chunk);
      }
      if (pass) yield chunk;
      if (ctx.clientAborted && ++drained > drain.chunks) break;
      const next = await iterator.next();
      idleTimer.refresh();
      chunk = next.done ? undefined : next.value;
    }
    if (ctx.usage) ctx.cost = costOf(ctx.usage, ctx.price);
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    clearTimeout(drainTimer);
    clearTimeout(idleTimer);
    await iterator.return?.();
  }
}

/** A copy, not an edit in place: the provider's text of the original chunk, written when no plugin edits, still has
 * the usage (src/providers/openai/wire-text.ts). */
function withoutUsage(chunk: ChatChunk): ChatChunk {
  const { usage: _usage, ...rest } = chunk;
  return rest;
}
