// The decoded ExportTraceServiceRequest checked and flattened to one record per span (docs/public-api.md
// "OpenTelemetry intake", Refusals): ids as lowercase hex, nanosecond times as ISO, attributes as plain values. One
// malformed span refuses the whole request, as Langfuse does, so a client pointing an OTLP logs or metrics exporter
// here learns it at once.
import { isObject } from '../../../platform/validation/json-object.ts';
import { attributesOf, type Attributes } from './attribute-values.ts';
import { OtlpRequestError } from './otlp-decode.ts';

export interface OtelSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTime: string;
  endTime?: string;
  attributes: Attributes;
  /** 2 is ERROR (OTLP StatusCode). */
  statusCode: number;
  statusMessage?: string;
  resourceAttributes: Attributes;
  scope: { name?: string; version?: string; attributes: Attributes };
}

const refuse = (message: string) => new OtlpRequestError(400, message, message);

/** A list field that may be absent but, when present, must be an array. */
function listAt(holder: Record<string, any>, key: string, where: string): unknown[] {
  const v = holder[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v))
    throw refuse(
      `Invalid OTel trace: ${where}.${key} must be an array (is an OTLP logs or metrics export pointed at the traces endpoint?)`,
    );
  return v;
}

/** Hex in OTLP/JSON, bytes in protobuf; all zeros or the wrong length is no id. */
function idOf(v: unknown, bytes: number): string | undefined {
  const hex = v instanceof Uint8Array ? Buffer.from(v).toString('hex') : typeof v === 'string' ? v.toLowerCase() : '';
  return hex.length === bytes * 2 && /^[0-9a-f]+$/.test(hex) && !/^0+$/.test(hex) ? hex : undefined;
}

/** Unix nanoseconds (text, number or protobuf Long) as ISO; zero or unreadable is undefined. */
export function nanosToIso(v: unknown): string | undefined {
  let nanos: bigint;
  try {
    if (isObject(v) && 'low' in v && 'high' in v)
      nanos = (BigInt((v.high as number) >>> 0) << 32n) | BigInt((v.low as number) >>> 0);
    else if (typeof v === 'number') nanos = BigInt(Math.trunc(v));
    else if (typeof v === 'string' && /^\d+$/.test(v)) nanos = BigInt(v);
    else return undefined;
  } catch {
    return undefined;
  }
  if (nanos <= 0n) return undefined;
  const date = new Date(Number(nanos / 1_000_000n));
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** JSON writes the status code as a number or its enum name. */
const statusCodeOf = (code: unknown) =>
  code === 2 || code === 'STATUS_CODE_ERROR' ? 2 : code === 1 || code === 'STATUS_CODE_OK' ? 1 : 0;

function spanOf(
  raw: unknown,
  where: string,
  resourceAttributes: Attributes,
  scope: OtelSpan['scope'],
  now: string,
): OtelSpan {
  if (!isObject(raw)) throw refuse(`Invalid OTel trace: ${where} must be an object`);
  const traceId = idOf(raw.traceId, 16);
  const spanId = idOf(raw.spanId, 8);
  if (!traceId) throw refuse(`Invalid OTel trace: ${where} has no valid traceId (16 bytes; hex in JSON)`);
  if (!spanId) throw refuse(`Invalid OTel trace: ${where} has no valid spanId (8 bytes; hex in JSON)`);
  const attributes = attributesOf(listAt(raw, 'attributes', where));
  listAt(raw, 'events', where);
  const status = isObject(raw.status) ? raw.status : {};
  return {
    traceId,
    spanId,
    parentSpanId: idOf(raw.parentSpanId, 8),
    name: typeof raw.name === 'string' ? raw.name : '',
    startTime: nanosToIso(raw.startTimeUnixNano) ?? now,
    endTime: nanosToIso(raw.endTimeUnixNano),
    attributes,
    statusCode: statusCodeOf(status.code),
    statusMessage: typeof status.message === 'string' && status.message !== '' ? status.message : undefined,
    resourceAttributes,
    scope,
  };
}

/** Every span of the request, or an OtlpRequestError naming the first malformed part. */
export function spansOf(request: unknown, now: string): OtelSpan[] {
  if (!isObject(request)) throw refuse('Invalid OTel trace: the body must be an ExportTraceServiceRequest object');
  const spans: OtelSpan[] = [];
  listAt(request, 'resourceSpans', 'request').forEach((rs, i) => {
    const where = `resourceSpans[${i}]`;
    if (!isObject(rs)) throw refuse(`Invalid OTel trace: ${where} must be an object`);
    const resourceAttributes = attributesOf(
      isObject(rs.resource) ? listAt(rs.resource, 'attributes', `${where}.resource`) : [],
    );
    listAt(rs, 'scopeSpans', where).forEach((ss, j) => {
      const scopeWhere = `${where}.scopeSpans[${j}]`;
      if (!isObject(ss)) throw refuse(`Invalid OTel trace: ${scopeWhere} must be an object`);
      const s = isObject(ss.scope) ? ss.scope : {};
      const scope = {
        name: typeof s.name === 'string' ? s.name : undefined,
        version: typeof s.version === 'string' ? s.version : undefined,
        attributes: attributesOf(listAt(s, 'attributes', `${scopeWhere}.scope`)),
      };
      listAt(ss, 'spans', scopeWhere).forEach((span, k) =>
        spans.push(spanOf(span, `${scopeWhere}.spans[${k}]`, resourceAttributes, scope, now)),
      );
    });
  });
  return spans;
}
