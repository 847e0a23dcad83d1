// A deterministic JSON value that validates against a JSON Schema: the mock provider's tool arguments and
// structured answers. Strings are the caller's text (the user's last message), fitted to the schema's constraints.
import { isObject } from '../../../platform/validation/json-object.ts';

type Schema = Record<string, unknown>;

/** Deeper than this, optional branches end: arrays take their minimum, unions prefer a branch without `$ref`. */
const SHALLOW_DEPTH = 8;
/** A schema that still requires more nesting here is recursive without end: null stands in. */
const MAX_DEPTH = 32;

/** Fixed samples of the formats ajv-formats checks, so a `format` constraint holds. */
const FORMAT_SAMPLES: Record<string, string> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00Z',
  duration: 'P1D',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  iri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  'iri-reference': 'https://example.com/',
  'uri-template': 'https://example.com/{id}',
  uuid: '00000000-0000-4000-8000-000000000000',
  'json-pointer': '/0',
  'relative-json-pointer': '0',
  regex: '.*',
};

interface Sampling {
  root: unknown;
  text: string;
}

/** A value for `schema`; `text` fills strings (the property name stands in when it is empty). */
export function sampleFromSchema(schema: unknown, text: string): unknown {
  return sample(schema, { root: schema, text }, 'value', 0);
}

function sample(schema: unknown, s: Sampling, name: string, depth: number): unknown {
  if (depth > MAX_DEPTH || schema === false) return null;
  if (!isObject(schema)) return fitString({}, s, name);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (typeof schema.$ref === 'string') return sample(deref(schema, s.root), s, name, depth + 1);
  if (Array.isArray(schema.allOf)) {
    const { allOf, ...rest } = schema;
    const parts = allOf.filter(isObject).map((part) => deref(part, s.root));
    return sample(parts.reduce(mergeSchemas, rest), s, name, depth);
  }
  for (const union of ['anyOf', 'oneOf'] as const) {
    const branches = schema[union];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const { [union]: _, ...rest } = schema;
    return sample(mergeSchemas(rest, pickBranch(branches, depth)), s, name, depth);
  }
  switch (pickType(schema, depth)) {
    case 'null':
      return null;
    case 'boolean':
      return true;
    case 'integer':
      return fitNumber(schema, true);
    case 'number':
      return fitNumber(schema, false);
    case 'array':
      return fitArray(schema, s, name, depth);
    case 'object':
      return fitObject(schema, s, depth);
    default:
      return fitString(schema, s, name);
  }
}

/** The schema a `$ref` points to, with the referring schema's other keywords on top. */
function deref(schema: Schema, root: unknown): Schema {
  if (typeof schema.$ref !== 'string') return schema;
  const { $ref, ...siblings } = schema;
  return { ...resolvePointer(root, $ref), ...siblings };
}

/** `#/$defs/x`-style references inside the same document; anything else samples as an empty schema. */
function resolvePointer(root: unknown, ref: string): Schema {
  if (!ref.startsWith('#')) return {};
  let at = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    at = isObject(at) ? at[key] : undefined;
  }
  return isObject(at) ? at : {};
}

/** Both schemas' constraints on one value: properties and required lists joined, other keywords from `b`. */
function mergeSchemas(a: Schema, b: unknown): Schema {
  if (!isObject(b)) return a;
  const merged: Schema = { ...a, ...b };
  if (isObject(a.properties) && isObject(b.properties)) merged.properties = { ...a.properties, ...b.properties };
  if (Array.isArray(a.required) && Array.isArray(b.required))
    merged.required = [...new Set([...a.required, ...b.required])];
  return merged;
}

/** The first branch; once deep, the first that does not recurse (a nullable self-reference ends on null). */
function pickBranch(branches: unknown[], depth: number): unknown {
  if (depth < SHALLOW_DEPTH) return branches[0];
  return branches.find((b) => !JSON.stringify(b).includes('"$ref"')) ?? branches[0];
}

function pickType(schema: Schema, depth: number): string {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type) && type.length > 0) {
    if (depth >= SHALLOW_DEPTH && type.includes('null')) return 'null';
    return type.find((t) => t !== 'null') ?? 'null';
  }
  if ('properties' in schema || 'required' in schema || 'additionalProperties' in schema) return 'object';
  if ('items' in schema || 'prefixItems' in schema) return 'array';
  if ('minimum' in schema || 'maximum' in schema || 'multipleOf' in schema) return 'number';
  return 'string';
}

/** The caller's text (or the property name) fitted to the length limits, or a fixed sample of the format. */
function fitString(schema: Schema, s: Sampling, name: string): string {
  if (typeof schema.format === 'string' && schema.format in FORMAT_SAMPLES) return FORMAT_SAMPLES[schema.format];
  const candidates = [s.text, name].filter((c) => c.length > 0).map((c) => fitLength(c, schema));
  if (typeof schema.pattern === 'string') {
    const pattern = compilePattern(schema.pattern);
    const matching = candidates.find((c) => pattern?.test(c));
    if (matching !== undefined) return matching;
  }
  return candidates[0] ?? fitLength('value', schema);
}

function compilePattern(source: string): RegExp | undefined {
  try {
    return new RegExp(source, 'u');
  } catch {
    return undefined;
  }
}

/** Lengths in code points, as JSON Schema counts them: cut at maxLength, repeated up to minLength. */
function fitLength(text: string, schema: Schema): string {
  const chars = Array.from(text);
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  const length = Math.max(min, Math.min(max, chars.length));
  const repeat = chars.length > 0 ? [' ', ...chars] : ['x'];
  while (chars.length < length) chars.push(...repeat);
  return chars.slice(0, length).join('');
}

/** 1 when the bounds allow it, else the bound nearest to it; a multiple of `multipleOf` when one is given. */
function fitNumber(schema: Schema, integer: boolean): number {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const step = num(schema.multipleOf) ?? (integer ? 1 : undefined);
  // Draft 4 spells exclusivity as a boolean beside minimum/maximum; later drafts as a number of its own.
  const exclusiveMin = schema.exclusiveMinimum === true ? num(schema.minimum) : num(schema.exclusiveMinimum);
  const exclusiveMax = schema.exclusiveMaximum === true ? num(schema.maximum) : num(schema.exclusiveMaximum);
  const min = schema.exclusiveMinimum === true ? undefined : num(schema.minimum);
  const max = schema.exclusiveMaximum === true ? undefined : num(schema.maximum);
  const above = (v: number) => (min === undefined || v >= min) && (exclusiveMin === undefined || v > exclusiveMin);
  const below = (v: number) => (max === undefined || v <= max) && (exclusiveMax === undefined || v < exclusiveMax);
  const onStep = (v: number) => (step === undefined ? v : Math.ceil(v / step) * step);
  const candidates = [1, min, exclusiveMin, max, exclusiveMax].filter((v) => v !== undefined);
  for (const c of candidates) {
    for (const v of [onStep(c), onStep(c) + (step ?? 1), onStep(c) - (step ?? 1)]) if (above(v) && below(v)) return v;
  }
  // A range narrower than 1 with no step: its middle.
  const low = min ?? exclusiveMin ?? 0;
  const high = max ?? exclusiveMax ?? low + 1;
  return (low + high) / 2;
}

function fitArray(schema: Schema, s: Sampling, name: string, depth: number): unknown[] {
  const prefix = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : [];
  const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;
  const wanted = depth >= SHALLOW_DEPTH ? minItems : Math.max(minItems, prefix.length, 1);
  const count = Math.min(wanted, maxItems, rest === false ? prefix.length : Infinity);
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) out.push(sample(i < prefix.length ? prefix[i] : rest, s, name, depth + 1));
  return out;
}

/** The required properties, then optional ones in order while fewer than minProperties. */
function fitObject(schema: Schema, s: Sampling, depth: number): Record<string, unknown> {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [];
  const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  const names = [...required];
  for (const optional of Object.keys(properties)) {
    if (names.length >= minProperties) break;
    if (!names.includes(optional)) names.push(optional);
  }
  const out: Record<string, unknown> = {};
  for (const key of names) {
    const propertySchema = key in properties ? properties[key] : (schema.additionalProperties ?? {});
    out[key] = sample(propertySchema === true ? {} : propertySchema, s, key, depth + 1);
  }
  return out;
}
