// A dashboard Point (its fields in docs/dashboard.md "Metrics", how each is counted in docs/dashboard-metrics.md)
// from summed rollups.
import type { Sums } from '../../platform/store/repos/metric-rollups.ts';
import { countOf, mergeInto, percentile } from '../../platform/telemetry/latency-histogram.ts';

export interface Point {
  requests: number;
  errors: number;
  /** ms; null when there were no requests. */
  latency_p50: number | null;
  latency_p95: number | null;
  latency_p99: number | null;
  /** Requests per second over the point's span. */
  throughput: number;
  /** Percent of requests that ended in an error. */
  error_rate: number;
  token_count: number;
  /** USD. */
  cost: number;
}

export function addSums(target: Sums, source: Readonly<Sums>): void {
  target.requests += source.requests;
  target.errors += source.errors;
  target.tokens += source.tokens;
  target.costNanoUsd += source.costNanoUsd;
  mergeInto(target.latency, source.latency);
}

export function pointOf(s: Readonly<Sums>, seconds: number): Point {
  const measured = countOf(s.latency);
  const p = (q: number) => percentile(s.latency, q, measured);
  return {
    requests: s.requests,
    errors: s.errors,
    latency_p50: p(50),
    latency_p95: p(95),
    latency_p99: p(99),
    throughput: seconds > 0 ? s.requests / seconds : 0,
    error_rate: s.requests > 0 ? (s.errors / s.requests) * 100 : 0,
    token_count: s.tokens,
    cost: s.costNanoUsd / 1e9,
  };
}
