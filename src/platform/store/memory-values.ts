// Byte values held in this process (the response cache's memory backend): least recently used first out, bounded by
// the bytes of keys and values, each with a time to live on the injected clock.
import type { Clock } from '../clock.ts';
import type { SharedValues } from './counters/counters.ts';

interface Entry {
  value: Buffer;
  expiresAt: number;
  bytes: number;
}

export class MemoryValues implements SharedValues {
  // A Map iterates in insertion order; re-inserting on every read keeps the least recently used first.
  readonly #entries = new Map<string, Entry>();
  readonly #maxBytes: number;
  readonly #clock: Clock;
  #bytes = 0;

  constructor(maxBytes: number, clock: Clock) {
    this.#maxBytes = maxBytes;
    this.#clock = clock;
  }

  /** Bytes of the keys and values held now. */
  get bytes(): number {
    return this.#bytes;
  }

  async get(key: string): Promise<Buffer | null> {
    const entry = this.#entries.get(key);
    if (!entry) return null;
    if (entry.expiresAt <= this.#clock.now()) {
      this.#remove(key, entry);
      return null;
    }
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  async set(key: string, value: Buffer, ttlMs: number): Promise<void> {
    const old = this.#entries.get(key);
    if (old) this.#remove(key, old);
    const bytes = Buffer.byteLength(key) + value.length;
    if (bytes > this.#maxBytes) return;
    this.#entries.set(key, { value, expiresAt: this.#clock.now() + ttlMs, bytes });
    this.#bytes += bytes;
    for (const [k, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#remove(k, entry);
    }
  }

  #remove(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}

/** `name` → its store: what `services.processValues` gives plugins. */
export type ProcessValues = (name: string, maxBytes: number) => SharedValues;

/**
 * The named stores of this process, kept across configurations (a reload keeps the cache); a store asked for with
 * another bound starts afresh with it.
 */
export function memoryProcessValues(clock: Clock): ProcessValues {
  const stores = new Map<string, { maxBytes: number; values: MemoryValues }>();
  return (name, maxBytes) => {
    const held = stores.get(name);
    if (held?.maxBytes === maxBytes) return held.values;
    const values = new MemoryValues(maxBytes, clock);
    stores.set(name, { maxBytes, values });
    return values;
  };
}
