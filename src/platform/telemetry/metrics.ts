// Gateway metrics: prom-client instruments in a registry of their own (several services can share a process
// in tests); /metrics serves them as the JSON of docs/operations.md "Metrics" or as Prometheus text.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { DurationHistogram } from './duration-histogram.ts';
import { LatencyWindow } from './latency-window.ts';

/** The deployments benched now, as the routing's bench board reads them from the counters store. */
export interface BenchState {
  /** Every deployment benched now, with its group and the bench's end (epoch ms). */
  benched: { group: string; deployment: string; until: number }[];
  /** Why the state could not be read (the counters store is unavailable); `benched` is then empty. */
  error?: string;
}

export interface ConfigStatus {
  version: number;
  source?: string;
  loadedAt: string;
  reloads: number;
  lastReloadError?: { at: string; message: string };
}

function statOf(stats: object, field: string): number {
  const value = (stats as Record<string, unknown>)[field];
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** p50, p95 and p99 of a window, in ms to the µs. */
function roundedPercentiles(window: LatencyWindow): (number | null)[] {
  return window.percentiles([0.5, 0.95, 0.99]).map((v) => (v === null ? null : Math.round(v * 1000) / 1000));
}

export class GatewayMetrics {
  readonly registry = new Registry();
  /** Requests per route and status, counted here and handed to prom-client at collect time: hashing the label
   * object on every request cost more than the rest of the request's bookkeeping. */
  readonly #requestCounts = new Map<string, Map<number, { count: number }>>();
  readonly requests: Counter<'route' | 'status'> = new Counter({
    name: 'svc_gateway_requests_total',
    help: 'Gateway requests by route and status',
    labelNames: ['route', 'status'],
    registers: [this.registry],
    collect: (): void => {
      this.requests.reset();
      for (const [route, byStatus] of this.#requestCounts)
        for (const [status, { count }] of byStatus) this.requests.inc({ route, status }, count);
    },
  });
  readonly refusals = new Counter({
    name: 'svc_gateway_refusals_total',
    help: 'Requests refused with a 4xx code',
    labelNames: ['code'],
    registers: [this.registry],
  });
  readonly errors = new Counter({
    name: 'svc_gateway_errors_total',
    help: 'Requests that failed with a 5xx or provider error, by code',
    labelNames: ['code'],
    registers: [this.registry],
  });
  readonly abortedUploads = new Counter({
    name: 'svc_gateway_aborted_uploads_total',
    help: 'Requests whose client closed the connection before sending the whole body',
    labelNames: ['route'],
    registers: [this.registry],
  });
  /** Answers whose provider usage was not a sane count (src/plugin-api/usage-check.ts), by what the gateway did. */
  readonly providerUsageInvalid = new Counter({
    name: 'svc_gateway_provider_usage_invalid_total',
    help: 'Provider answers whose usage was not a sane count: estimated instead (action=estimated), or parts above their totals clamped (action=repaired)',
    labelNames: ['action'],
    registers: [this.registry],
  });
  /** Answers the provider sent without usage (a JSON answer without `usage`, a stream without a usage chunk). */
  readonly providerUsageMissing = new Counter({
    name: 'svc_gateway_provider_usage_missing_total',
    help: 'Provider answers that came without usage (a JSON answer without usage, a stream that ended without a usage chunk); their usage was estimated',
    registers: [this.registry],
  });
  // A histogram (cheap to observe, aggregatable across replicas) for Prometheus; the JSON percentiles come from
  // the exact durations of recent requests. A prom-client Summary cost several µs per request (5 t-digests).
  readonly latency = new Histogram({
    name: 'svc_gateway_request_duration_seconds',
    help: 'Gateway request duration, to the end of the response',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  readonly recentLatency = new LatencyWindow(10_000);
  /** The gateway's own time per answered request (x-svc-overhead-ms; streams: to their end), with exact JSON
   * percentiles from the recent ones as for latency. */
  readonly overhead = new DurationHistogram(this.registry, {
    name: 'svc_gateway_overhead_seconds',
    help: 'Time the gateway spent on an answered request outside provider calls and backoff waits (x-svc-overhead-ms; streams: to the end of the stream)',
    boundsMs: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500],
  });
  readonly recentOverhead = new LatencyWindow(10_000);
  readonly configReloads = new Counter({
    name: 'svc_config_reloads_total',
    help: 'Configuration reloads by result',
    labelNames: ['result'],
    registers: [this.registry],
  });
  readonly configStale = new Gauge({
    name: 'svc_config_last_reload_failed',
    help: '1 when the last reload failed and the previous configuration is still serving',
    registers: [this.registry],
  });
  /** Requests being served; read when metrics are collected, never updated per request. */
  inFlightNow: () => number = () => 0;
  readonly inFlight: Gauge = new Gauge({
    name: 'svc_gateway_in_flight_requests',
    help: 'Requests being served',
    registers: [this.registry],
    collect: (): void => this.inFlight.set(this.inFlightNow()),
  });
  config: ConfigStatus = { version: 1, loadedAt: new Date().toISOString(), reloads: 0 };
  /** The trace writer's counters (queue depth, batches, spills, drops), read when metrics are served. */
  telemetry: () => object = () => ({});
  // The trace writer's numbers for Prometheus, read from `telemetry()` at collect time (never updated per trace).
  readonly traceQueueDepth = this.#traceGauge(
    'svc_trace_queue_depth',
    'Traces waiting in memory for the database',
    'queue_depth',
  );
  readonly traceQueueCapacity = this.#traceGauge(
    'svc_trace_queue_capacity',
    'Traces the in-memory queue holds before spilling to disk',
    'queue_capacity',
  );
  readonly traceSpillFiles = this.#traceGauge(
    'svc_trace_spill_files',
    'Spill files waiting to be replayed into the database',
    'spill_files',
  );
  readonly traceBatches = this.#traceCounter(
    'svc_trace_batches_total',
    'Multi-row trace inserts committed (queue and replay)',
    'batches_written',
  );
  readonly tracesWritten = this.#traceCounter(
    'svc_traces_written_total',
    'Traces stored in the database',
    'traces_written',
  );
  readonly traceWriteFailures = this.#traceCounter(
    'svc_trace_write_failures_total',
    'Trace batch writes that failed and were retried',
    'write_failures',
  );
  readonly tracesSpilled = this.#traceCounter(
    'svc_traces_spilled_total',
    'Traces written to a spill file because a write failed, the queue was full or the writer was stopping',
    'spilled',
  );
  readonly tracesReplayed = this.#traceCounter(
    'svc_traces_replayed_total',
    'Spilled traces stored on replay',
    'replayed',
  );
  readonly tracesDropped = this.#traceCounter(
    'svc_traces_dropped_total',
    'Traces lost: the spill file could not be written, or the database refused the row',
    'dropped',
  );
  /** The OTLP exporter's counters (tracing.otlp); null when export is off. Read when metrics are served. */
  otlpExport: () => object | null = () => null;
  readonly #otlpStats = (): object => this.otlpExport() ?? {};
  readonly otlpQueueDepth = this.#statGauge(
    this.#otlpStats,
    'svc_otlp_export_queue_depth',
    'Traces waiting in memory for the OpenTelemetry collector',
    'queue_depth',
  );
  readonly otlpTracesExported = this.#statCounter(
    this.#otlpStats,
    'svc_otlp_traces_exported_total',
    'Traces the OpenTelemetry collector accepted',
    'traces_exported',
  );
  readonly otlpExportFailures = this.#statCounter(
    this.#otlpStats,
    'svc_otlp_export_failures_total',
    'OTLP exports that failed (collector unreachable, timed out, 429 or 5xx) and were retried',
    'export_failures',
  );
  readonly otlpTracesDropped = this.#statCounter(
    this.#otlpStats,
    'svc_otlp_traces_dropped_total',
    'Traces not exported: the export queue was full, the collector refused the batch, or shutdown came first',
    'dropped',
  );
  /** The webhook delivery loop's counters (attempts, delivered, failed events, automations disabled), read when served. */
  webhooks: () => object = () => ({});
  readonly webhookAttempts = this.#statCounter(
    () => this.webhooks(),
    'svc_webhook_attempts_total',
    'Webhook delivery attempts made by this process',
    'attempts',
  );
  readonly webhooksDelivered = this.#statCounter(
    () => this.webhooks(),
    'svc_webhook_delivered_total',
    'Webhook events delivered (a 2xx answer)',
    'delivered',
  );
  readonly webhookFailedEvents = this.#statCounter(
    () => this.webhooks(),
    'svc_webhook_failed_events_total',
    'Webhook events whose every attempt failed',
    'failed_events',
  );
  readonly webhookDisabled = this.#statCounter(
    () => this.webhooks(),
    'svc_webhook_automations_disabled_total',
    'Automations disabled after consecutive failed events',
    'disabled',
  );

  /** Deployments benched now, read from the counters store (shared by every replica) when metrics are served. */
  benchState: () => Promise<BenchState> = async () => ({ benched: [] });
  readonly benchedUntil: Gauge = new Gauge({
    name: 'svc_deployment_benched_until_seconds',
    help: 'When the bench of a benched deployment ends (Unix seconds), as every replica sharing the counters store sees it; benched deployments only',
    labelNames: ['model_group', 'deployment'],
    registers: [this.registry],
    collect: async (): Promise<void> => {
      const { benched } = await this.benchState();
      this.benchedUntil.reset();
      for (const b of benched)
        this.benchedUntil.set({ model_group: b.group, deployment: b.deployment }, b.until / 1000);
    },
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
  }

  #traceGauge(name: string, help: string, field: string): Gauge {
    return this.#statGauge(() => this.telemetry(), name, help, field);
  }

  /** A gauge mirroring the value `field` of the stats `source` returns. */
  #statGauge(source: () => object, name: string, help: string, field: string): Gauge {
    const stat = (): number => statOf(source(), field);
    return new Gauge({
      name,
      help,
      registers: [this.registry],
      collect(this: Gauge) {
        this.set(stat());
      },
    });
  }

  /** A counter mirroring a monotonic count the trace writer keeps. */
  #traceCounter(name: string, help: string, field: string): Counter {
    return this.#statCounter(() => this.telemetry(), name, help, field);
  }

  /** A counter mirroring the monotonic count `field` of the stats `source` returns. */
  #statCounter(source: () => object, name: string, help: string, field: string): Counter {
    const stat = (): number => statOf(source(), field);
    return new Counter({
      name,
      help,
      registers: [this.registry],
      collect(this: Counter) {
        this.reset();
        this.inc(stat());
      },
    });
  }

  recordProviderUsageFault(fault: 'invalid' | 'repaired' | 'missing'): void {
    if (fault === 'missing') this.providerUsageMissing.inc();
    else this.providerUsageInvalid.inc({ action: fault === 'invalid' ? 'estimated' : 'repaired' });
  }

  /** `overheadMs`: the gateway's own time, for requests that got an answer (none when the client left first). */
  recordRequest(
    route: string,
    status: number,
    code: string | null | undefined,
    seconds: number,
    overheadMs: number | undefined,
  ): void {
    let byStatus = this.#requestCounts.get(route);
    if (!byStatus) this.#requestCounts.set(route, (byStatus = new Map()));
    const tally = byStatus.get(status);
    if (tally) tally.count++;
    else byStatus.set(status, { count: 1 });
    if (code) {
      if (status >= 400 && status < 500) this.refusals.inc({ code });
      else if (status >= 500 || code === 'upstream_stream_error') this.errors.inc({ code });
    }
    this.latency.observe(seconds);
    this.recentLatency.add(seconds * 1000);
    if (overheadMs !== undefined) {
      this.overhead.observe(overheadMs);
      this.recentOverhead.add(overheadMs);
    }
  }

  async json(extra: Record<string, unknown>): Promise<Record<string, unknown>> {
    const byLabel = async (metric: Counter<string>, label: string) => {
      const out: Record<string, number> = {};
      for (const v of (await metric.get()).values)
        out[String(v.labels[label])] = (out[String(v.labels[label])] ?? 0) + v.value;
      return out;
    };
    const { estimated = 0, repaired = 0 } = await byLabel(this.providerUsageInvalid, 'action');
    const requests = await this.requests.get();
    const byStatus: Record<string, number> = {};
    const byRoute: Record<string, number> = {};
    let total = 0;
    for (const v of requests.values) {
      total += v.value;
      byStatus[String(v.labels.status)] = (byStatus[String(v.labels.status)] ?? 0) + v.value;
      byRoute[String(v.labels.route)] = (byRoute[String(v.labels.route)] ?? 0) + v.value;
    }
    const [p50, p95, p99] = roundedPercentiles(this.recentLatency);
    const [o50, o95, o99] = roundedPercentiles(this.recentOverhead);
    const memory = process.memoryUsage();
    return {
      requests: {
        total,
        by_route: byRoute,
        by_status: byStatus,
        in_flight: this.inFlightNow(),
        aborted_uploads: (await this.abortedUploads.get()).values.reduce((n, v) => n + v.value, 0),
      },
      refusals: { by_code: await byLabel(this.refusals, 'code') },
      errors: { by_code: await byLabel(this.errors, 'code') },
      provider_usage_invalid: { total: estimated + repaired, estimated, repaired },
      provider_usage_missing: (await this.providerUsageMissing.get()).values[0]?.value ?? 0,
      latency_ms: { window_requests: this.recentLatency.count, p50, p95, p99 },
      overhead_ms: {
        ...this.overhead.json(),
        window_requests: this.recentOverhead.count,
        p50: o50,
        p95: o95,
        p99: o99,
      },
      telemetry: { traces: this.telemetry(), webhooks: this.webhooks(), otlp: this.otlpExport() },
      configuration: {
        version: this.config.version,
        source: this.config.source ?? null,
        loaded_at: this.config.loadedAt,
        reloads: this.config.reloads,
        status: this.config.lastReloadError ? 'last_reload_failed' : 'ok',
        last_reload_error: this.config.lastReloadError ?? null,
      },
      process: {
        pid: process.pid,
        node: process.version,
        uptime_s: Math.round(process.uptime()),
        rss_bytes: memory.rss,
        heap_used_bytes: memory.heapUsed,
      },
      ...extra,
    };
  }
}
