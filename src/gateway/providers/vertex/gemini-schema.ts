// JSON Schema → the OpenAPI 3.0 subset Vertex accepts in `functionDeclarations[].parameters` and
// `generationConfig.responseSchema`. Vertex answers 400 for keys outside the subset (additionalProperties, $schema,
// strict… Portkey#837), so everything not on the allow-list is dropped, recursively.
import type { JsonObject } from '../../../platform/openai/wire-types.ts';
import { isObject } from '../../../platform/validation/json-object.ts';

/** Keys of the Vertex `Schema` object that keep their value as it is. */
const PLAIN_KEYS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'required',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'propertyOrdering',
]);

// Inlining stops here: a recursive $ref would otherwise never end.
const MAX_REF_DEPTH = 8;

/** The schema Vertex accepts: local `$ref`s inlined, `const` → `enum`, `oneOf` → `anyOf`, `type: [t, "null"]` → `nullable`. */
export function geminiSchema(schema: unknown): JsonObject {
  if (!isObject(schema)) return {};
  const defs = {
    ...(isObject(schema.definitions) ? schema.definitions : {}),
    ...(isObject(schema.$defs) ? schema.$defs : {}),
  };
  return convert(schema, defs, 0);
}

function convert(schema: JsonObject, defs: JsonObject, depth: number): JsonObject {
  if (typeof schema.$ref === 'string') {
    const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(schema.$ref)?.[1];
    const target = name === undefined ? undefined : defs[name];
    // An unresolvable or too deep reference becomes an unconstrained object rather than a 400 from Vertex.
    if (!isObject(target) || depth >= MAX_REF_DEPTH)
      return { type: 'object', ...(typeof schema.description === 'string' ? { description: schema.description } : {}) };
    return convert({ ...target, ...withoutRef(schema) }, defs, depth + 1);
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (PLAIN_KEYS.has(key)) out[key] = value;
    else if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, convert(isObject(sub) ? sub : {}, defs, depth)]),
      );
    } else if (key === 'items' && isObject(value)) out.items = convert(value, defs, depth);
    else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      out.anyOf = value.filter(isObject).map((sub) => convert(sub, defs, depth));
    } else if (key === 'const') out.enum = [value];
  }
  if (Array.isArray(out.type)) {
    const types = out.type.filter((t) => t !== 'null');
    if (types.length < out.type.length) out.nullable = true;
    if (types.length === 1) out.type = types[0];
    else {
      delete out.type;
      if (types.length > 1 && out.anyOf === undefined) out.anyOf = types.map((t) => ({ type: t }));
    }
  }
  // Vertex knows upper- and lower-case type names; the OpenAPI subset has no "null" type.
  if (out.type === 'null') {
    delete out.type;
    out.nullable = true;
  }
  return out;
}

function withoutRef(schema: JsonObject): JsonObject {
  const { $ref: _ref, ...rest } = schema;
  return rest;
}
