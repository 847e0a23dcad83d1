/** The durations of the last `size` requests, for exact percentiles on /metrics; O(1) per request. */
export class LatencyWindow {
  readonly #samples: Float64Array;
  #next = 0;
  #filled = 0;

  constructor(size: number) {
    this.#samples = new Float64Array(size);
  }

  get count(): number {
    return this.#filled;
  }

  add(value: number): void {
    this.#samples[this.#next] = value;
    this.#next = (this.#next + 1) % this.#samples.length;
    if (this.#filled < this.#samples.length) this.#filled++;
  }

  /** The durations held, oldest first or not: what a merge of several windows needs. */
  samples(): number[] {
    return Array.from(this.#samples.subarray(0, this.#filled));
  }

  /** Nearest-rank percentiles (q in 0..1); null while empty. */
  percentiles(qs: readonly number[]): (number | null)[] {
    if (this.#filled === 0) return qs.map(() => null);
    const sorted = this.#samples.slice(0, this.#filled).sort();
    return qs.map((q) => sorted[Math.min(this.#filled - 1, Math.max(0, Math.ceil(q * this.#filled) - 1))]);
  }
}
