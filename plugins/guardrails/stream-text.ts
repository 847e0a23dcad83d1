// The text of a streamed answer, kept up to a bound so a long stream cannot grow memory without limit.
export class StreamText {
  #parts: string[] = [];
  #chars = 0;
  #truncated = false;
  readonly #max: number;

  constructor(maxChars: number) {
    this.#max = maxChars;
  }

  add(text: string): void {
    const room = this.#max - this.#chars;
    if (text.length > room) this.#truncated = true;
    const kept = text.slice(0, room);
    if (kept === '') return;
    this.#parts.push(kept);
    this.#chars += kept.length;
  }

  get text(): string {
    return this.#parts.join('');
  }

  get chars(): number {
    return this.#chars;
  }

  get truncated(): boolean {
    return this.#truncated;
  }
}
