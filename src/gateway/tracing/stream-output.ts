// Rebuilds the assistant message of a streamed response from its chunks, for the trace (bounded in size).
import type { ChatChunk } from '../../platform/openai/wire-types.ts';

interface ToolCallParts {
  id?: string;
  type: string;
  function: { name: string; arguments: string };
}

export class StreamOutput {
  #content = '';
  #toolCalls: ToolCallParts[] = [];
  #finishReason: string | null = null;
  #truncated = false;
  readonly #maxChars: number;

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  add(chunk: ChatChunk): void {
    const choice = chunk.choices?.[0] as { delta?: Record<string, any>; finish_reason?: string | null } | undefined;
    if (!choice) return;
    if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    const delta = choice.delta;
    if (!delta) return;
    if (typeof delta.content === 'string') this.#append(delta.content);
    if (Array.isArray(delta.tool_calls)) {
      for (const part of delta.tool_calls as Record<string, any>[]) {
        const index = typeof part.index === 'number' ? part.index : 0;
        const call = (this.#toolCalls[index] ??= { type: 'function', function: { name: '', arguments: '' } });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.function.name += part.function.name;
        if (part.function?.arguments && call.function.arguments.length < this.#maxChars)
          call.function.arguments += part.function.arguments;
      }
    }
  }

  #append(text: string): void {
    if (this.#content.length + text.length > this.#maxChars) {
      this.#content += text.slice(0, Math.max(0, this.#maxChars - this.#content.length));
      this.#truncated = true;
    } else this.#content += text;
  }

  message(): Record<string, unknown> {
    const out: Record<string, unknown> = { role: 'assistant', content: this.#content };
    const calls = this.#toolCalls.filter(Boolean);
    if (calls.length > 0) out.tool_calls = calls;
    if (this.#finishReason) out.finish_reason = this.#finishReason;
    if (this.#truncated) out.truncated = true;
    return out;
  }
}
