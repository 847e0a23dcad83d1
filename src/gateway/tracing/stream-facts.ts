// What a streamed answer says about itself apart from its content: the model that answered and each choice's finish
// reason. Kept whatever record_content says, so each chunk costs a few property reads.
import type { ChatChunk } from '../../platform/openai/wire-types.ts';

export class StreamFacts {
  /** The model the first chunk naming one reports (every OpenAI-wire chunk carries the same). */
  model: string | undefined;
  /** By choice index, as the final chunks give them. */
  readonly #reasons = new Map<number, string>();

  add(chunk: ChatChunk): void {
    if (this.model === undefined && typeof chunk.model === 'string') this.model = chunk.model;
    const choices = chunk.choices;
    if (!Array.isArray(choices)) return;
    for (let i = 0; i < choices.length; i++) {
      const choice = choices[i] as { index?: unknown; finish_reason?: unknown } | null;
      const reason = choice?.finish_reason;
      if (typeof reason === 'string') this.#reasons.set(typeof choice!.index === 'number' ? choice!.index : i, reason);
    }
  }

  /** The finish reasons in choice order. */
  finishReasons(): string[] {
    return [...this.#reasons].sort(([a], [b]) => a - b).map(([, reason]) => reason);
  }
}
