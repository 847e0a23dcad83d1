// Items handed to another thread in one message per event-loop turn: every request that ends in a turn adds its
// item, and the batch goes out once the turn's I/O callbacks have run (setImmediate), one postMessage for them all.

export class TurnBatch<T> {
  readonly #send: (items: T[]) => void;
  #items: T[] = [];
  #scheduled = false;

  /** `send` gets each batch, never an empty one. */
  constructor(send: (items: T[]) => void) {
    this.#send = send;
  }

  /** Items waiting for the end of the turn. */
  get length(): number {
    return this.#items.length;
  }

  add(...items: T[]): void {
    this.#items.push(...items);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Sends what was added so far now. */
  flush(): void {
    this.#scheduled = false;
    if (this.#items.length === 0) return;
    const items = this.#items;
    this.#items = [];
    this.#send(items);
  }
}
