// OTLP attribute values (docs/public-api.md "OpenTelemetry intake"): AnyValue in its JSON or decoded-protobuf form to a
// plain JS value, and the small readers the field mappings share.
import { isObject } from '../../../platform/validation/json-object.ts';
import { OtlpRequestError } from './otlp-decode.ts';

export type Attributes = Record<string, unknown>;

/** An int64: a number when it fits, else its decimal text (protobuf Longs arrive as text, see otlp-decode.ts). */
function intOf(v: unknown): unknown {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : String(v);
}

/** The deepest arrayValue / kvlistValue nesting taken; deeper, the request is refused (the reading recurses). */
export const MAX_VALUE_DEPTH = 32;

function tooDeep(): OtlpRequestError {
  const message = `Invalid OTel trace: an attribute value is nested more than ${MAX_VALUE_DEPTH} levels deep`;
  return new OtlpRequestError(400, message, message);
}

/** One AnyValue (`depth` 1 for an attribute's own value); an unknown shape is kept as its JSON text. */
export function anyValueOf(value: unknown, depth = 1): unknown {
  if (depth > MAX_VALUE_DEPTH) throw tooDeep();
  if (!isObject(value)) return value ?? null;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return intOf(value.intValue);
  // OTLP/JSON writes NaN and Infinity as strings; they stay strings.
  if ('doubleValue' in value)
    return typeof value.doubleValue === 'string' && !Number.isNaN(Number(value.doubleValue))
      ? Number(value.doubleValue)
      : value.doubleValue;
  if ('arrayValue' in value)
    return ((value.arrayValue as { values?: unknown[] } | undefined)?.values ?? []).map((v) =>
      anyValueOf(v, depth + 1),
    );
  if ('kvlistValue' in value)
    return attributesOf((value.kvlistValue as { values?: unknown[] } | undefined)?.values ?? [], depth);
  if ('bytesValue' in value)
    return value.bytesValue instanceof Uint8Array ? Buffer.from(value.bytesValue).toString('base64') : value.bytesValue;
  if (Object.keys(value).length === 0) return null;
  try {
    return JSON.stringify(value);
  } catch {
    throw tooDeep(); // JSON.stringify overflows the stack on JSON nested some thousands deep
  }
}

/**
 * A KeyValue list as an object (later keys win), its values one level below `depth`. No prototype, so a `__proto__`
 * key is an ordinary key.
 */
export function attributesOf(list: readonly unknown[], depth = 0): Attributes {
  const out: Attributes = Object.create(null);
  for (const kv of list) if (isObject(kv) && typeof kv.key === 'string') out[kv.key] = anyValueOf(kv.value, depth + 1);
  return out;
}

/** The value of the first key present. */
export function firstOf(attrs: Attributes, keys: readonly string[]): unknown {
  for (const k of keys) if (attrs[k] !== undefined && attrs[k] !== null && attrs[k] !== '') return attrs[k];
  return undefined;
}

/** A string attribute (numbers and booleans as text). */
export function stringOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** SDKs send structured values as JSON text; a text that is not JSON stays text. */
export function parsedJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** A JSON-object attribute, or undefined. */
export function objectOf(v: unknown): Record<string, unknown> | undefined {
  const parsed = parsedJson(v);
  return isObject(parsed) ? parsed : undefined;
}

/**
 * `<prefix>.<key>` attributes gathered into an object. The SDKs flatten metadata this way: the JS SDK sends strings
 * raw and other values as JSON, the Python SDK (v5) every value as JSON (`"acme"` with its quotes). Each text is read
 * as JSON when it is JSON, else kept as text, as Langfuse reads these values back.
 */
export function flattenedUnder(attrs: Attributes, prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith(`${prefix}.`)) out[k.slice(prefix.length + 1)] = parsedJson(v);
  }
  return out;
}

export const isTrue = (v: unknown) => v === true || v === 'true';
