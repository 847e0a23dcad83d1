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
import { estimatedBytes, exportSized, statusOf } from './sized-export.ts';

export interface SvcSpanProcessorOptions extends ConnectionOptions {
  /** Spans waiting for export at most; further spans are dropped (and counted). Default 2048. */
  maxQueueSize?: number;
  /** Spans per export request; default 512. */
  maxExportBatchSize?: number;
  /** Delay between scheduled exports, in milliseconds; default 1000. */
  scheduledDelayMillis?: number;
  /** Bytes per export request at most, estimated before encoding and compression; default 4 MiB. A batch the server
   * refuses with 413 is halved and sent again; a single span it refuses is dropped (and logged). */
  maxExportBatchBytes?: number;
  /** Time one export (with the exporter's own retries) may take, in milliseconds; default 10,000. */
  exportTimeoutMillis?: number;
  /** Export what is queued when the event loop empties (`beforeExit`); default true. */
  flushOnExit?: boolean;
  /** Where the one warning about lost spans goes; default `console`. */
  logger?: { warn(message: string): void };
}

/** The OTLP exporter, sending each batch in requests of bounded size and reporting what it could not deliver. */
class ReportingExporter implements SpanExporter {
  readonly #inner: SpanExporter;
  readonly #maxBytes: number;
  readonly #report: (handed: number, failed: number, error?: Error) => void;
  readonly #tooLarge: (span: ReadableSpan) => void;

  constructor(
    inner: SpanExporter,
    maxBytes: number,
    report: (handed: number, failed: number, error?: Error) => void,
    tooLarge: (span: ReadableSpan) => void,
  ) {
    this.#inner = inner;
    this.#maxBytes = maxBytes;
    this.#report = report;
    this.#tooLarge = tooLarge;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.#report(spans.length, 0);
    let lastError: Error | undefined;
    void exportSized(this.#inner, spans, this.#maxBytes, (part, result) => {
      if (result.code === ExportResultCode.SUCCESS) return;
      lastError = result.error;
      if (part.length === 1 && statusOf(result) === 413) this.#tooLarge(part[0]);
      this.#report(0, part.length, result.error);
    }).then((delivered) =>
      done(delivered ? { code: ExportResultCode.SUCCESS } : { code: ExportResultCode.FAILED, error: lastError }),
    );
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
      new ReportingExporter(
        exporter,
        countOption(options.maxExportBatchBytes, 'maxExportBatchBytes', 4 * 1024 * 1024, 1),
        (handed, failed, error) => {
          this.#queued -= handed;
          if (failed > 0) this.#drop(failed, `export to ${this.endpoint} failed${describe(error)}`);
        },
        (span) =>
          this.#logger.warn(
            `svc-sdk: span "${span.name}" (trace ${span.spanContext().traceId}, span ${span.spanContext().spanId}, ` +
              `about ${estimatedBytes(span)} bytes) was refused by ${this.endpoint} as too large (413) and is dropped.`,
          ),
      ),
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
