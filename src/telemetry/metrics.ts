// Gateway metrics: prom-client instruments in a registry of their own (several services can share a process
// in tests); /metrics serves them as the spec's JSON or as Prometheus text.
import { Counter, Gauge, Registry, Summary, collectDefaultMetrics } from 'prom-client';

export interface ConfigStatus {
  version: number;
  source?: string;
  loadedAt: string;
  reloads: number;
  lastReloadError?: { at: string; message: string };
}

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({ name: 'svc_gateway_requests_total', help: 'Gateway requests by route and status', labelNames: ['route', 'status'], registers: [this.registry] });
  readonly refusals = new Counter({ name: 'svc_gateway_refusals_total', help: 'Requests refused with a 4xx code', labelNames: ['code'], registers: [this.registry] });
  readonly errors = new Counter({ name: 'svc_gateway_errors_total', help: 'Requests that failed with a 5xx or provider error, by code', labelNames: ['code'], registers: [this.registry] });
  readonly latency = new Summary({
    name: 'svc_gateway_request_duration_seconds',
    help: 'Gateway request duration (to the end of the response), sliding 10-minute window',
    percentiles: [0.5, 0.95, 0.99],
    maxAgeSeconds: 600,
    ageBuckets: 5,
    registers: [this.registry],
  });
  readonly configReloads = new Counter({ name: 'svc_config_reloads_total', help: 'Configuration reloads by result', labelNames: ['result'], registers: [this.registry] });
  readonly configStale = new Gauge({ name: 'svc_config_last_reload_failed', help: '1 when the last reload failed and the previous configuration is still serving', registers: [this.registry] });
  readonly inFlight = new Gauge({ name: 'svc_gateway_in_flight_requests', help: 'Requests being served', registers: [this.registry] });
  config: ConfigStatus = { version: 1, loadedAt: new Date().toISOString(), reloads: 0 };

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
  }

  recordRequest(route: string, status: number, code: string | null | undefined, seconds: number): void {
    this.requests.inc({ route, status });
    if (code) {
      if (status >= 400 && status < 500) this.refusals.inc({ code });
      else if (status >= 500 || code === 'upstream_stream_error') this.errors.inc({ code });
    }
    this.latency.observe(seconds);
  }

  async json(extra: Record<string, unknown>): Promise<Record<string, unknown>> {
    const byLabel = async (metric: Counter<string>, label: string) => {
      const out: Record<string, number> = {};
      for (const v of (await metric.get()).values) out[String(v.labels[label])] = (out[String(v.labels[label])] ?? 0) + v.value;
      return out;
    };
    const requests = await this.requests.get();
    const byStatus: Record<string, number> = {};
    const byRoute: Record<string, number> = {};
    let total = 0;
    for (const v of requests.values) {
      total += v.value;
      byStatus[String(v.labels.status)] = (byStatus[String(v.labels.status)] ?? 0) + v.value;
      byRoute[String(v.labels.route)] = (byRoute[String(v.labels.route)] ?? 0) + v.value;
    }
    const latency = await this.latency.get();
    const quantile = (q: number) => {
      const v = latency.values.find((x) => x.labels.quantile === q)?.value;
      return v === undefined || Number.isNaN(v) ? null : Math.round(v * 1e6) / 1e3;
    };
    const memory = process.memoryUsage();
    return {
      requests: { total, by_route: byRoute, by_status: byStatus, in_flight: (await this.inFlight.get()).values[0]?.value ?? 0 },
      refusals: { by_code: await byLabel(this.refusals, 'code') },
      errors: { by_code: await byLabel(this.errors, 'code') },
      latency_ms: { window_s: 600, p50: quantile(0.5), p95: quantile(0.95), p99: quantile(0.99) },
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
