// The text of a streamed answer, per choice, kept up to a bound so a long stream cannot grow memory without limit.
import { CheckedText } from './detectors/checked-text.ts';
import type { ChatChunk } from '../../src/plugin-api/index.ts';

export class StreamText {
  readonly #choices = new Map<number, string[]>();
  #chars = 0;
  #truncated = false;
  readonly #max: number;

  constructor(maxChars: number) {
    this.#max = maxChars;
  }

  /** The content a chunk adds, to the choice each delta belongs to. */
  add(chunk: ChatChunk): void {
    (chunk.choices ?? []).forEach((c, i) => {
      const choice = c as { index?: unknown; delta?: { content?: unknown } } | null;
      const content = choice?.delta?.content;
      if (typeof content === 'string') this.#append(typeof choice?.index === 'number' ? choice.index : i, content);
    });
  }

  #append(index: number, text: string): void {
    const room = this.#max - this.#chars;
    if (text.length > room) this.#truncated = true;
    const kept = text.slice(0, room);
    if (kept === '') return;
    let parts = this.#choices.get(index);
    if (!parts) this.#choices.set(index, (parts = []));
    parts.push(kept);
    this.#chars += kept.length;
  }

  /** One field per choice, as the answer's message would hold it: `choices[<index>].message.content`. */
  checked(): CheckedText {
    const indices = [...this.#choices.keys()].sort((a, b) => a - b);
    return new CheckedText(
      indices.map((i) => ({ path: `choices[${i}].message.content`, text: this.#choices.get(i)!.join('') })),
    );
  }

  get chars(): number {
    return this.#chars;
  }

  get truncated(): boolean {
    return this.#truncated;
  }
}
