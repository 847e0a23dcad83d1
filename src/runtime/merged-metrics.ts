// /metrics for a process whose gateway runs on several threads: the main thread's numbers (trace writer, webhooks,
// process, configuration) with every thread's request numbers added in. Prometheus text goes through prom-client's
// aggregation (sums, except where a metric names its own); the JSON sums counts and takes percentiles over the
// union of the threads' windows of recent requests.
import { getHeapStatistics } from 'node:v8';
import { AggregatorRegistry } from 'prom-client';
import { LatencyWindow } from '../platform/telemetry/latency-window.ts';
import type { GatewayMetrics } from '../platform/telemetry/metrics.ts';
import type { ThreadMetrics } from './gateway-thread-messages.ts';

/** One serving thread's numbers, as mergedJson and mergedPrometheus take them. */
export async function threadMetrics(metrics: GatewayMetrics): Promise<ThreadMetrics> {
  return {
    prometheus: await metrics.registry.getMetricsAsJSON(),
    json: await metrics.json({}),
    latencyMs: metrics.recentLatency.samples(),
    overheadMs: metrics.recentOverhead.samples(),
    heapBytes: getHeapStatistics().total_heap_size,
  };
}

export async function mergedPrometheus(
  main: GatewayMetrics,
  threads: ThreadMetrics[],
): Promise<{ contentType: string; text: string }> {
  const merged = AggregatorRegistry.aggregate([
    await main.registry.getMetricsAsJSON(),
    ...threads.map((t) => t.prometheus),
  ]);
  return { contentType: merged.contentType, text: await merged.metrics() };
}

type Json = Record<string, unknown>;
type OverheadJson = { count: number; sum: number; buckets: { le: number | '+Inf'; count: number }[] };

/** The sections of /metrics' JSON that count requests, summed over the threads. */
const SUMMED = ['requests', 'refusals', 'errors', 'provider_usage_invalid', 'provider_usage_missing'] as const;

export function mergedJson(main: Json, threads: ThreadMetrics[]): Json {
  const out: Json = { ...main };
  for (const section of SUMMED)
    out[section] = threads.reduce<unknown>((sum, t) => addNumbers(sum, t.json[section]), undefined);
  const overhead = threads.map((t) => t.json.overhead_ms as OverheadJson);
  out.latency_ms = windowOf(threads.map((t) => t.latencyMs));
  out.overhead_ms = {
    count: overhead.reduce((n, o) => n + o.count, 0),
    sum: overhead.reduce((n, o) => n + o.sum, 0),
    buckets: (overhead[0]?.buckets ?? []).map(({ le }, i) => ({
      le,
      count: overhead.reduce((n, o) => n + o.buckets[i].count, 0),
    })),
    ...windowOf(threads.map((t) => t.overheadMs)),
  };
  // How evenly the kernel spreads connections over the threads: each thread's requests since start, and now; and
  // what each thread's heap holds (the process's resident memory covers them all).
  const requests = threads.map((t) => t.json.requests as Json);
  out.gateway_threads = {
    count: threads.length,
    requests: requests.map((r) => r.total),
    in_flight: requests.map((r) => r.in_flight),
    heap_mb: threads.map((t) => Math.round(t.heapBytes / 104_857.6) / 10),
  };
  return out;
}

/** Percentiles over the samples of every thread's window, as one window would give them. */
function windowOf(samples: number[][]): Json {
  const all = samples.flat();
  const window = new LatencyWindow(Math.max(1, all.length));
  for (const v of all) window.add(v);
  const [p50, p95, p99] = window
    .percentiles([0.5, 0.95, 0.99])
    .map((v) => (v === null ? null : Math.round(v * 1000) / 1000));
  return { window_requests: all.length, p50, p95, p99 };
}

/** Adds numbers at the same place in two JSON values of one shape (objects and arrays of numbers). */
function addNumbers(a: unknown, b: unknown): unknown {
  if (a === undefined) return structuredClone(b);
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return a.map((v, i) => addNumbers(v, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const out: Json = { ...(a as Json) };
    for (const [k, v] of Object.entries(b as Json)) out[k] = k in out ? addNumbers(out[k], v) : structuredClone(v);
    return out;
  }
  return a;
}
