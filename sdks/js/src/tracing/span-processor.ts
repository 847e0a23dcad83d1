// SvcSpanProcessor: OpenTelemetry's BatchSpanProcessor and OTLP/HTTP protobuf exporter pointed at svc's intake with
// Basic auth, for NodeSDK or NodeTracerProvider. Export failures never reach the program: the spans they lose, and
// spans refused because the queue is full, are counted in `droppedSpans` and the first loss is logged once.
import { TraceFlags, type Context } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type Span,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { countOption, positiveNumber, resolveConnection, type ConnectionOptions } from '../config.ts';
import { propagatedAttributes } from '../trace-context.ts';
import { traceAttributes } from './attributes.ts';

export interface SvcSpanProcessorOptions extends ConnectionOptions {
  /** Spans waiting for export at most; further spans are dropped (and counted). Default 2048. */
  maxQueueSize?: number;
  /** Spans per export request; default 512. */
  maxExportBatchSize?: number;
  /** Delay between scheduled exports, in milliseconds; default 1000. */
  scheduledDelayMillis?: number;
  /** Time one export (with the exporter's own retries) may take, in milliseconds; default 10,000. */
  exportTimeoutMillis?: number;
  /** Export what is queued when the event loop empties (`beforeExit`); default true. */
  flushOnExit?: boolean;
  /** Where the one warning about lost spans goes; default `console`. */
  logger?: { warn(message: string): void };
}

/** The OTLP exporter, with each batch's outcome reported to the processor. */
class ReportingExporter implements SpanExporter {
  readonly #inner: SpanExporter;
  readonly #report: (handed: number, failed: number, error?: Error) => void;

  constructor(inner: SpanExporter, report: (handed: number, failed: number, error?: Error) => void) {
    this.#inner = inner;
    this.#report = report;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    let reported = false;
    const finish = (result: ExportResult) => {
      if (reported) return;
      reported = true;
      this.#report(0, result.code === ExportResultCode.SUCCESS ? 0 : spans.length, result.error);
      done(result);
    };
    this.#report(spans.length, 0);
    try {
      this.#inner.export(spans, finish);
    } catch (err) {
      finish({ code: ExportResultCode.FAILED, error: err instanceof Error ? err : new Error(String(err)) });
    }
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** The exporter's error as `: <message> (HTTP <status>)`; OTLPExporterError carries the status as `code`. */
function describe(error: Error | undefined): string {
  if (!error) return '';
  const code = (error as { code?: unknown }).code;
  return `: ${error.message}${typeof code === 'number' ? ` (HTTP ${code})` : ''}`;
}

export class SvcSpanProcessor implements SpanProcessor {
  /** The intake URL spans are sent to. */
  readonly endpoint: string;
  readonly #batch: BatchSpanProcessor;
  readonly #maxQueueSize: number;
  readonly #logger: { warn(message: string): void };
  /** Spans given to the batch processor and not yet handed to the exporter: its queue. */
  #queued = 0;
  #dropped = 0;
  #warned = false;
  #stopped = false;
  readonly #onExit = () => {
    if (this.#queued > 0) void this.forceFlush();
  };

  /** Options override the environment (`SVC_PUBLIC_KEY`, `SVC_SECRET_KEY`, `SVC_BASE_URL`); a bad setting throws SvcConfigError. */
  constructor(options: SvcSpanProcessorOptions = {}) {
    const connection = resolveConnection(options);
    this.endpoint = `${connection.baseUrl}/api/public/otel/v1/traces`;
    this.#maxQueueSize = countOption(options.maxQueueSize, 'maxQueueSize', 2048, 1);
    const exportTimeoutMillis = positiveNumber(options.exportTimeoutMillis, 'exportTimeoutMillis', 10_000);
    this.#logger = options.logger ?? console;
    const exporter = new OTLPTraceExporter({
      url: this.endpoint,
      headers: { Authorization: connection.authorization },
      timeoutMillis: exportTimeoutMillis,
    });
    this.#batch = new BatchSpanProcessor(
      new ReportingExporter(exporter, (handed, failed, error) => {
        this.#queued -= handed;
        if (failed > 0) this.#drop(failed, `export to ${this.endpoint} failed${describe(error)}`);
      }),
      {
        maxQueueSize: this.#maxQueueSize,
        maxExportBatchSize: Math.min(
          countOption(options.maxExportBatchSize, 'maxExportBatchSize', 512, 1),
          this.#maxQueueSize,
        ),
        scheduledDelayMillis: positiveNumber(options.scheduledDelayMillis, 'scheduledDelayMillis', 1000),
        exportTimeoutMillis,
      },
    );
    if (options.flushOnExit ?? true) process.on('beforeExit', this.#onExit);
  }

  /** Spans lost so far: failed exports and spans refused while the queue was full. */
  get droppedSpans(): number {
    return this.#dropped;
  }

  /** Copies the attributes `withTraceAttributes` put in the context onto the new span. */
  onStart(span: Span, parentContext: Context): void {
    const propagated = propagatedAttributes(parentContext);
    if (Object.keys(propagated).length > 0) span.setAttributes(traceAttributes(propagated));
  }

  onEnd(span: ReadableSpan): void {
    if (this.#stopped || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.#queued >= this.#maxQueueSize) {
      this.#drop(1, `the export queue is full (maxQueueSize ${this.#maxQueueSize})`);
      return;
    }
    this.#queued++;
    this.#batch.onEnd(span);
  }

  /** Exports every queued span; resolves when done, also when the export failed (the loss is counted). */
  async forceFlush(): Promise<void> {
    try {
      await this.#batch.forceFlush();
    } catch {
      // counted and logged by the exporter's report
    }
  }

  /** Exports what is queued and stops; later spans are ignored. */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    process.off('beforeExit', this.#onExit);
    try {
      await this.#batch.shutdown();
    } catch {
      // counted and logged by the exporter's report
    }
  }

  #drop(count: number, reason: string): void {
    this.#dropped += count;
    if (this.#warned) return;
    this.#warned = true;
    this.#logger.warn(
      `svc-sdk: ${count} span(s) dropped: ${reason}. Later losses are counted in droppedSpans, not logged.`,
    );
  }
}
