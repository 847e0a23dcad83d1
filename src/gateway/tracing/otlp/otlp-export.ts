// Exports gateway traces to an OpenTelemetry collector (tracing.otlp), off the request path, with the rules of the
// trace writer as far as they apply to a remote collector: a bounded in-memory queue (a trace arriving when it is full
// is dropped and counted), batches sent by OTel's own OTLP/HTTP exporter, a batch kept and retried with backoff while
// the collector is unreachable or answers 429/5xx, a batch the collector refuses (another 4xx) dropped and counted,
// and what is queued sent on shutdown within the drain deadline. Nothing here touches disk: a collector that stays
// down loses the traces the queue cannot hold, never the store's copy (docs/decisions.md "Issue 20: OTLP export").
import { setTimeout as sleep } from 'node:timers/promises';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { OtlpExportConfig } from '../../../platform/config/types.ts';
import type { Logger } from '../../../platform/telemetry/logger.ts';
import type { TraceItem } from '../trace-item.ts';
import type { TraceSink } from '../trace-writer.ts';
import { gatewaySpans, type SpanSource } from './gateway-spans.ts';

/** What /metrics shows under telemetry.otlp. */
export interface OtlpExportStats {
  queue_depth: number;
  queue_capacity: number;
  batches_exported: number;
  traces_exported: number;
  export_failures: number;
  /** Traces lost: the queue was full, the collector refused their batch, or shutdown came first. */
  dropped: number;
  collector: 'ok' | 'failing';
}

interface SpanExporter {
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
}

const MAX_BACKOFF_MS = 30_000;

/** The exporter's error for a collector's answer (OTLPExporterError): the HTTP status and the body. */
type CollectorAnswer = Error & { code?: unknown; data?: unknown };

/** A collector's answer that blames the batch, not the collector: a 4xx other than 408 and 429. */
function refused(err: CollectorAnswer | undefined): boolean {
  const code = typeof err?.code === 'number' ? err.code : undefined;
  return code !== undefined && code >= 400 && code < 500 && code !== 408 && code !== 429;
}

export class OtlpExport implements TraceSink {
  readonly #exporter: SpanExporter;
  readonly #source: SpanSource;
  readonly #config: OtlpExportConfig;
  readonly #log: Logger;
  /** Oldest first; the batch being exported stays at the head until the collector took it. */
  #queue: TraceItem[] = [];
  #failures = 0;
  #stopping = false;
  /** Set when shutdown gave up on the queue: an export still under way then counts for nothing. */
  #abandoned = false;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  readonly stats = { batches_exported: 0, traces_exported: 0, export_failures: 0, dropped: 0 };

  constructor(config: OtlpExportConfig, log: Logger) {
    this.#config = config;
    this.#log = log;
    const Exporter = config.protocol === 'http/json' ? JsonExporter : ProtobufExporter;
    this.#exporter = new Exporter({ url: config.endpoint, headers: config.headers, timeoutMillis: config.timeout_ms });
    this.#source = {
      resource: resourceFromAttributes({ 'service.name': config.service_name, ...config.resource_attributes }),
      scope: { name: 'svc.gateway' },
    };
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  enqueue(item: TraceItem): void {
    if (this.#stopping || this.#queue.length >= this.#config.queue_size) {
      this.stats.dropped++;
      return;
    }
    this.#queue.push(item);
    if (this.#queue.length >= this.#config.batch_size) this.#wake?.();
  }

  snapshot(): OtlpExportStats {
    return {
      queue_depth: this.#queue.length,
      queue_capacity: this.#config.queue_size,
      ...this.stats,
      collector: this.#failures > 0 ? 'failing' : 'ok',
    };
  }

  /** Exports what is queued for up to `deadlineMs`, counts what is left as dropped, and stops. */
  async stop(deadlineMs = 5_000): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    while (this.#queue.length > 0 && this.#failures === 0 && this.#loop && Date.now() < deadline) {
      this.#wake?.();
      await new Promise((r) => setTimeout(r, 10));
    }
    this.#stopping = true;
    this.#wake?.();
    // An export hanging on a silent collector must not hold the shutdown past the deadline.
    const left = () => new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())).unref());
    await Promise.race([this.#loop, left()]);
    this.#abandoned = true;
    if (this.#queue.length > 0) {
      this.stats.dropped += this.#queue.length;
      this.#log.warn('otlp export: traces not exported before shutdown; dropped', { traces: this.#queue.length });
      this.#queue = [];
    }
    await Promise.race([this.#exporter.shutdown().catch(() => {}), left()]);
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      if (this.#queue.length < this.#config.batch_size) await this.#sleep(this.#config.flush_ms);
      if (this.#stopping || this.#queue.length === 0) continue;
      const batch = this.#queue.slice(0, this.#config.batch_size);
      const result = await this.#export(batch);
      if (this.#abandoned) return;
      if (this.#stopping && result.code !== ExportResultCode.SUCCESS && !refused(result.error)) return;
      if (result.code === ExportResultCode.SUCCESS) this.#exported(batch.length);
      else if (refused(result.error)) this.#refused(batch.length, result.error!);
      else await this.#failed(result.error);
    }
  }

  #export(batch: TraceItem[]): Promise<ExportResult> {
    return new Promise((resolve) => {
      try {
        this.#exporter.export(
          batch.flatMap((item) => gatewaySpans(item, this.#source)),
          resolve,
        );
      } catch (err) {
        resolve({ code: ExportResultCode.FAILED, error: err as Error });
      }
    });
  }

  #exported(count: number): void {
    this.#queue.splice(0, count);
    this.stats.batches_exported++;
    this.stats.traces_exported += count;
    if (this.#failures > 0)
      this.#log.info('otlp export: collector reachable again', { after_failures: this.#failures });
    this.#failures = 0;
  }

  #refused(count: number, err: CollectorAnswer): void {
    this.#queue.splice(0, count);
    this.stats.dropped += count;
    this.#log.error('otlp export: the collector refused a batch; its traces are dropped', {
      traces: count,
      status: err.code,
      error: typeof err.data === 'string' && err.data !== '' ? err.data.slice(0, 500) : err.message,
    });
  }

  async #failed(err: Error | undefined): Promise<void> {
    this.#failures++;
    this.stats.export_failures++;
    if (this.#failures === 1)
      this.#log.warn('otlp export failed; keeping the batch and retrying with backoff', {
        error: err?.message,
        queued: this.#queue.length,
      });
    const backoff = Math.min(MAX_BACKOFF_MS, 100 * 2 ** Math.min(this.#failures - 1, 10));
    await this.#sleep(backoff / 2 + Math.random() * (backoff / 2));
  }

  /** Waits `ms`, or less when `#wake` is called (a full batch, shutdown). */
  #sleep(ms: number): Promise<void> {
    const wake = new AbortController();
    this.#wake = () => wake.abort();
    return sleep(ms, undefined, { signal: wake.signal }).catch(() => {});
  }
}
