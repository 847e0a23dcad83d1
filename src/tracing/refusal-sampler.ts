// "Sampled" refusals (spec part 7) are traced at most once per minute per key and reason. In-process for now;
// replicas each keep their own window until the counters store (Redis) holds it.
export class RefusalSampler {
  readonly #last = new Map<string, number>();
  readonly #windowMs: number;

  constructor(windowMs = 60_000) {
    this.#windowMs = windowMs;
  }

  /** True when this key and reason were not traced within the window; records it. */
  admit(keyId: string, reason: string, now: number): boolean {
    const id = `${keyId}\u0000${reason}`;
    const last = this.#last.get(id);
    if (last !== undefined && now - last < this.#windowMs) return false;
    this.#last.set(id, now);
    if (this.#last.size > 10_000) this.#prune(now);
    return true;
  }

  #prune(now: number): void {
    for (const [id, at] of this.#last) if (now - at >= this.#windowMs) this.#last.delete(id);
  }
}
