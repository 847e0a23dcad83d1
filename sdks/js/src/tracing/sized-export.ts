// Export requests of bounded size: a batch is cut into parts of at most `maxBytes` (estimated before encoding and
// compression), and a part the server refuses with 413 is halved and each half sent again, down to single spans; a
// single span refused as too large is the only loss, never its batch.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** What one span adds to an OTLP request, roughly: its texts plus a fixed share for ids, times and framing. */
export function estimatedBytes(span: ReadableSpan): number {
  let bytes = 120 + Buffer.byteLength(span.name);
  const attributes = [
    span.attributes,
    ...span.events.map((e) => e.attributes ?? {}),
    ...span.links.map((l) => l.attributes ?? {}),
  ];
  for (const set of attributes)
    for (const [key, value] of Object.entries(set))
      bytes +=
        8 +
        Buffer.byteLength(key) +
        (typeof value === 'string' ? Buffer.byteLength(value) : JSON.stringify(value ?? null).length);
  return bytes;
}

/** The spans in order, cut into parts of at most `maxBytes`; a span larger than that is a part of its own. */
export function partsOf(spans: ReadableSpan[], maxBytes: number): ReadableSpan[][] {
  const parts: ReadableSpan[][] = [];
  let current: ReadableSpan[] = [];
  let bytes = 0;
  for (const span of spans) {
    const size = estimatedBytes(span);
    if (current.length > 0 && bytes + size > maxBytes) {
      parts.push(current);
      current = [];
      bytes = 0;
    }
    current.push(span);
    bytes += size;
  }
  if (current.length > 0) parts.push(current);
  return parts;
}

/** The HTTP status of a failed OTLP export (OTLPExporterError carries it as `code`). */
export const statusOf = (result: ExportResult) => (result.error as { code?: unknown } | undefined)?.code;

const exportOnce = (inner: SpanExporter, spans: ReadableSpan[]) =>
  new Promise<ExportResult>((resolve) => {
    try {
      inner.export(spans, resolve);
    } catch (err) {
      resolve({ code: ExportResultCode.FAILED, error: err instanceof Error ? err : new Error(String(err)) });
    }
  });

/** One outcome per request sent: its spans and the result. */
export type PartReport = (spans: ReadableSpan[], result: ExportResult) => void;

async function sendHalvingOn413(inner: SpanExporter, spans: ReadableSpan[], report: PartReport): Promise<boolean> {
  const result = await exportOnce(inner, spans);
  if (result.code === ExportResultCode.SUCCESS || statusOf(result) !== 413 || spans.length === 1) {
    report(spans, result);
    return result.code === ExportResultCode.SUCCESS;
  }
  const half = Math.ceil(spans.length / 2);
  const first = await sendHalvingOn413(inner, spans.slice(0, half), report);
  const second = await sendHalvingOn413(inner, spans.slice(half), report);
  return first && second;
}

/** Sends `spans` in parts of at most `maxBytes`, one after the other; true when every span was delivered. */
export async function exportSized(
  inner: SpanExporter,
  spans: ReadableSpan[],
  maxBytes: number,
  report: PartReport,
): Promise<boolean> {
  let delivered = true;
  for (const part of partsOf(spans, maxBytes)) delivered = (await sendHalvingOn413(inner, part, report)) && delivered;
  return delivered;
}
