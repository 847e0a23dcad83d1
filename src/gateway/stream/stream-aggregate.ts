// What a streamed answer's chunks said, gathered once per chunk by the response writer and read by plugins as
// `ctx.streamed` (so no plugin needs a per-chunk hook to learn it): the chunk count, the model, each choice's finish
// reason, and the assistant message. The message keeps the chunks' own strings (content and each tool call's arguments
// up to MAX_TEXT_CHARS), and is cut to what its reader asks for when read.
import type { ChatChunk } from '../../platform/openai/wire-types.ts';
import type { StreamedAnswer } from '../../plugin-api/contract.ts';

/** The most message text kept: the largest bound a reader may ask for (tracing's max_output_chars maximum). */
export const MAX_TEXT_CHARS = 10_485_760;

interface ToolCallParts {
  id?: string;
  type: string;
  function: { name: string; arguments: string[] };
  argumentChars: number;
}

export class StreamAggregate implements StreamedAnswer {
  chunks = 0;
  model: string | undefined;
  /** By choice index, as the final chunks give them. */
  readonly #reasons = new Map<number, string>();
  readonly #content: string[] = [];
  #contentChars = 0;
  /** Non-empty content came after MAX_TEXT_CHARS were kept. */
  #contentDropped = false;
  readonly #toolCalls: ToolCallParts[] = [];
  #finishReason: string | null = null;

  add(chunk: ChatChunk): void {
    this.chunks++;
    if (this.model === undefined && typeof chunk.model === 'string') this.model = chunk.model;
    const choices = chunk.choices;
    if (!Array.isArray(choices)) return;
    for (let i = 0; i < choices.length; i++) {
      const choice = choices[i] as { index?: unknown; finish_reason?: unknown } | null;
      const reason = choice?.finish_reason;
      if (typeof reason === 'string') this.#reasons.set(typeof choice!.index === 'number' ? choice!.index : i, reason);
    }
    this.#addToMessage(choices[0] as { delta?: Record<string, any>; finish_reason?: string | null } | undefined);
  }

  /** The message is made of the first choice of each chunk. */
  #addToMessage(choice: { delta?: Record<string, any>; finish_reason?: string | null } | undefined): void {
    if (!choice) return;
    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (!delta) return;
    if (typeof delta.content === 'string') this.#keep(delta.content);
    if (Array.isArray(delta.tool_calls)) {
      for (const part of delta.tool_calls as Record<string, any>[]) {
        const index = typeof part.index === 'number' ? part.index : 0;
        const call = (this.#toolCalls[index] ??= {
          type: 'function',
          function: { name: '', arguments: [] },
          argumentChars: 0,
        });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.function.name += part.function.name;
        const args = part.function?.arguments;
        if (args && call.argumentChars < MAX_TEXT_CHARS) {
          call.function.arguments.push(args);
          call.argumentChars += args.length;
        }
      }
    }
  }

  #keep(text: string): void {
    if (this.#contentChars >= MAX_TEXT_CHARS) {
      if (text !== '') this.#contentDropped = true;
      return;
    }
    this.#content.push(text);
    this.#contentChars += text.length;
  }

  finishReasons(): string[] {
    return [...this.#reasons].sort(([a], [b]) => a - b).map(([, reason]) => reason);
  }

  message(maxChars: number): Record<string, unknown> {
    let content = '';
    let truncated = this.#contentDropped;
    for (const text of this.#content) {
      if (content.length + text.length > maxChars) {
        content += text.slice(0, Math.max(0, maxChars - content.length));
        truncated = true;
      } else content += text;
    }
    const out: Record<string, unknown> = { role: 'assistant', content };
    const calls = this.#toolCalls.filter(Boolean).map(({ argumentChars: _, ...call }) => ({
      ...call,
      function: { name: call.function.name, arguments: joinedUpTo(call.function.arguments, maxChars) },
    }));
    if (calls.length > 0) out.tool_calls = calls;
    if (this.#finishReason) out.finish_reason = this.#finishReason;
    if (truncated) out.truncated = true;
    return out;
  }
}

/** Parts appended while the text is shorter than `maxChars` (the last one may pass it). */
function joinedUpTo(parts: readonly string[], maxChars: number): string {
  let text = '';
  for (const part of parts) if (text.length < maxChars) text += part;
  return text;
}
