// The OTLP/HTTP body (docs/public-api.md "OpenTelemetry intake", Transport): gzip undone within a size bound, then
// protobuf decoded with the OpenTelemetry project's own generated definitions (docs/decisions.md
// "OTLP protobuf definitions") or JSON parsed.
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

const gunzipAsync = promisify(gunzip);

// The generated root is CommonJS without an exports map; createRequire reaches its build path.
const root = createRequire(import.meta.url)('otlp-transformer-protobufjs/build/src/generated/root.js');

/** The part of a protobufjs generated message class used here. */
interface MessageClass {
  decode(bytes: Uint8Array): object;
  toObject(message: object, options: { longs: StringConstructor; arrays: boolean }): Record<string, unknown>;
  fromObject(value: object): object;
  encode(message: object): { finish(): Uint8Array };
}
const traceService = root.opentelemetry.proto.collector.trace.v1 as Record<
  'ExportTraceServiceRequest' | 'ExportTraceServiceResponse',
  MessageClass
>;

export type OtlpEncoding = 'protobuf' | 'json';

/** A refused OTLP request: its `error` (Langfuse's text where Langfuse has one) and our explanation. */
export class OtlpRequestError extends Error {
  readonly status: number;
  readonly error: string;

  constructor(status: number, error: string, message: string) {
    super(message);
    this.status = status;
    this.error = error;
  }
}

export const PARSE_FAILURE: Record<OtlpEncoding, string> = {
  protobuf: 'Failed to parse OTel Protobuf Trace',
  json: 'Failed to parse OTel JSON Trace',
};

/** The encoding a Content-Type names (substring match, as Langfuse: parameters such as charset pass). */
export function encodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  if (contentType?.includes('application/x-protobuf')) return 'protobuf';
  if (contentType?.includes('application/json')) return 'json';
  return undefined;
}

/** The body with gzip undone; inflating past `maxBytes` stops there (no gzip bombs). */
export async function decompressed(
  body: Buffer,
  contentEncoding: string | undefined,
  encoding: OtlpEncoding,
  maxBytes: number,
): Promise<Buffer> {
  const coding = (contentEncoding ?? 'identity').trim().toLowerCase();
  if (coding === 'identity' || coding === '') return body;
  if (coding !== 'gzip')
    throw new OtlpRequestError(
      400,
      'Unsupported content encoding',
      `Content-Encoding ${coding} is not supported: send gzip or none`,
    );
  try {
    return await gunzipAsync(body, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new OtlpRequestError(
        413,
        'PayloadTooLargeError',
        `The decompressed body is over ${maxBytes} bytes, the limit for a gzipped body of ${body.length} bytes; send smaller batches`,
      );
    }
    throw new OtlpRequestError(
      400,
      PARSE_FAILURE[encoding],
      `${PARSE_FAILURE[encoding]}: the body is not valid gzip (${(err as Error).message})`,
    );
  }
}

/** The ExportTraceServiceRequest as a plain object in OTLP/JSON field names (ids as bytes, int64 as text). */
export function decodeRequest(body: Buffer, encoding: OtlpEncoding): unknown {
  try {
    if (encoding === 'json') return JSON.parse(body.toString('utf8'));
    const message = traceService.ExportTraceServiceRequest.decode(body);
    return traceService.ExportTraceServiceRequest.toObject(message, { longs: String, arrays: true });
  } catch (err) {
    throw new OtlpRequestError(400, PARSE_FAILURE[encoding], `${PARSE_FAILURE[encoding]}: ${(err as Error).message}`);
  }
}

/** An ExportTraceServiceResponse, empty unless some spans were refused (OTLP partial success). */
export function encodeResponse(partialSuccess?: { rejectedSpans: number; errorMessage: string }): Buffer {
  const message = traceService.ExportTraceServiceResponse.fromObject(partialSuccess ? { partialSuccess } : {});
  return Buffer.from(traceService.ExportTraceServiceResponse.encode(message).finish());
}
