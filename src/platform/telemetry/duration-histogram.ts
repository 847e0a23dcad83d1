// A label-free histogram of durations counted in a plain array, handed to the prom-client registry as a histogram
// only when metrics are served: prom-client's Histogram.observe hashes its label object on every call (about 190 ns
// a request against 10 for this).
import type { Metric, Registry } from 'prom-client';

export interface DurationHistogramOptions {
  /** Prometheus name, in seconds (the exposition's base unit): `svc_..._seconds`. */
  name: string;
  help: string;
  /** Upper bounds of the buckets, in milliseconds, ascending; a last `+Inf` bucket is implied. */
  boundsMs: readonly number[];
}

/** Durations observed in milliseconds; served as a Prometheus histogram in seconds and as JSON in milliseconds. */
export class DurationHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly #boundsMs: readonly number[];
  /** Observations per bucket (not cumulative); the last is above every bound. */
  readonly #counts: Float64Array;
  #sumMs = 0;
  #count = 0;

  constructor(registry: Registry, options: DurationHistogramOptions) {
    this.name = options.name;
    this.help = options.help;
    this.#boundsMs = options.boundsMs;
    this.#counts = new Float64Array(options.boundsMs.length + 1);
    // The registry reads a metric through `name`, `help`, `type` and `get()` alone.
    registry.registerMetric(this as unknown as Metric);
  }

  observe(ms: number): void {
    let i = 0;
    while (i < this.#boundsMs.length && ms > this.#boundsMs[i]) i++;
    this.#counts[i]++;
    this.#sumMs += ms;
    this.#count++;
  }

  /** Cumulative counts by upper bound (`le`, ms), as Prometheus buckets are; a list, so they stay in order. */
  json(): { count: number; sum: number; buckets: { le: number | '+Inf'; count: number }[] } {
    const buckets: { le: number | '+Inf'; count: number }[] = [];
    let below = 0;
    for (let i = 0; i < this.#counts.length; i++) {
      below += this.#counts[i];
      buckets.push({ le: i < this.#boundsMs.length ? this.#boundsMs[i] : '+Inf', count: below });
    }
    return { count: this.#count, sum: Math.round(this.#sumMs * 1000) / 1000, buckets };
  }

  /** prom-client's shape of a histogram's values (what `Histogram.get()` returns), in seconds. */
  async get() {
    const values: { metricName: string; labels: Record<string, string | number>; value: number }[] = [];
    let below = 0;
    for (let i = 0; i < this.#counts.length; i++) {
      below += this.#counts[i];
      const le = i < this.#boundsMs.length ? this.#boundsMs[i] / 1000 : '+Inf';
      values.push({ metricName: `${this.name}_bucket`, labels: { le }, value: below });
    }
    values.push({ metricName: `${this.name}_sum`, labels: {}, value: this.#sumMs / 1000 });
    values.push({ metricName: `${this.name}_count`, labels: {}, value: this.#count });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' as const };
  }
}
