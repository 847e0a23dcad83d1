// What a streamed answer's chunks said, gathered once per chunk by the response writer and read by plugins as
// `ctx.streamed` (so no plugin needs a per-chunk hook to learn it): the chunk count, the model, each choice's finish
// reason, and the answer text. Text is kept only as far as a plugin of the pipeline asks for it (a hook's
// `streamedTextChars`): none when no plugin reads it, so a stream nobody records costs no memory for its text.
import type { ChatChunk } from '../../platform/openai/wire-types.ts';
import type { StreamedAnswer, StreamedTexts } from '../../plugin-api/contract.ts';

interface ToolCallParts {
  id?: string;
  type: string;
  function: { name: string; arguments: string[] };
  argumentChars: number;
}

/** Content as it arrived, each part with the index of its choice. */
interface TextPart {
  index: number;
  text: string;
}

export class StreamAggregate implements StreamedAnswer {
  chunks = 0;
  model: string | undefined;
  /** By choice index, as the final chunks give them. */
  readonly #reasons = new Map<number, string>();
  /** The most content characters kept, over all choices, and the most tool-call argument characters per call. */
  readonly #maxChars: number;
  readonly #parts: TextPart[] = [];
  #chars = 0;
  /** Content characters the stream carried past `#maxChars`. */
  #droppedChars = 0;
  /** The tool calls of choice 0. */
  readonly #toolCalls: ToolCallParts[] = [];

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  add(chunk: ChatChunk): void {
    this.chunks++;
    if (this.model === undefined && typeof chunk.model === 'string') this.model = chunk.model;
    const choices = chunk.choices;
    if (!Array.isArray(choices)) return;
    for (let i = 0; i < choices.length; i++) {
      const choice = choices[i] as { index?: unknown; finish_reason?: unknown; delta?: Record<string, any> } | null;
      if (!choice) continue;
      const index = typeof choice.index === 'number' ? choice.index : i;
      if (typeof choice.finish_reason === 'string') this.#reasons.set(index, choice.finish_reason);
      const delta = choice.delta;
      if (!delta) continue;
      if (typeof delta.content === 'string' && delta.content !== '') this.#keep(index, delta.content);
      if (index === 0 && Array.isArray(delta.tool_calls)) this.#addToolCalls(delta.tool_calls);
    }
  }

  #keep(index: number, text: string): void {
    const room = this.#maxChars - this.#chars;
    if (text.length > room) this.#droppedChars += text.length - room;
    if (room <= 0) return;
    const kept = text.length > room ? text.slice(0, room) : text;
    this.#parts.push({ index, text: kept });
    this.#chars += kept.length;
  }

  #addToolCalls(parts: Record<string, any>[]): void {
    for (const part of parts) {
      const index = typeof part.index === 'number' ? part.index : 0;
      const call = (this.#toolCalls[index] ??= {
        type: 'function',
        function: { name: '', arguments: [] },
        argumentChars: 0,
      });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.function.name += part.function.name;
      const args = part.function?.arguments;
      if (args && call.argumentChars < this.#maxChars) {
        call.function.arguments.push(args);
        call.argumentChars += args.length;
      }
    }
  }

  finishReasons(): string[] {
    return [...this.#reasons].sort(([a], [b]) => a - b).map(([, reason]) => reason);
  }

  texts(maxChars: number): StreamedTexts {
    const byChoice = new Map<number, string>();
    let chars = 0;
    for (const { index, text } of this.#parts) {
      if (chars >= maxChars) break;
      const kept = text.length > maxChars - chars ? text.slice(0, maxChars - chars) : text;
      byChoice.set(index, (byChoice.get(index) ?? '') + kept);
      chars += kept.length;
    }
    const choices = [...byChoice].sort(([a], [b]) => a - b).map(([index, text]) => ({ index, text }));
    const carried = this.#chars + this.#droppedChars;
    return { choices, chars, truncated: carried > maxChars || this.#droppedChars > 0 };
  }

  message(maxChars: number): Record<string, unknown> {
    let content = '';
    let truncated = this.#droppedChars > 0;
    for (const { index, text } of this.#parts) {
      if (index !== 0) continue;
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
    const reason = this.#reasons.get(0);
    if (reason) out.finish_reason = reason;
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
