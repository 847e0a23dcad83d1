// Route schemas of the public API (schemas/api/public-*.json) compiled with this scope's own ajv: query strings are
// coerced (`?limit=10`, a single `?tags=a` becomes ['a']), bodies are not. Parameters and fields a schema does not
// name are dropped first, as Langfuse ignores them (unknown-fields.ts); the ones it names are checked strictly.
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { ValidationIssue } from './public-error.ts';
import { unknownFieldStripper } from './unknown-fields.ts';

// ajv-formats ships CommonJS; its default export is the function under ESM interop.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const queryAjv = addFormats(new Ajv({ allErrors: true, useDefaults: true, coerceTypes: 'array', strict: false }));
const bodyAjv = addFormats(new Ajv({ allErrors: true, useDefaults: true, strict: false }));

export const publicValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  const validate = ajv.compile(schema as object);
  const strip = unknownFieldStripper(ajv, schema as Record<string, unknown>);
  const stripThenValidate = (data: unknown) => {
    strip(data);
    const valid = validate(data);
    stripThenValidate.errors = validate.errors;
    return valid;
  };
  stripThenValidate.errors = validate.errors;
  return stripThenValidate;
};

function segmentsOf(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** The reason an ajv error gives, worded for people; `path` names the value it is about. */
export function describeAjvError(err: ErrorObject): ValidationIssue {
  const path = segmentsOf(err.instancePath);
  const p = err.params as Record<string, any>;
  switch (err.keyword) {
    case 'required':
      return { path: [...path, p.missingProperty], message: 'is required' };
    case 'additionalProperties':
      return { path: [...path, p.additionalProperty], message: 'is not a known field' };
    case 'enum':
      return {
        path,
        message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'minItems':
      return { path, message: p.limit === 1 ? 'must not be empty' : `must have at least ${p.limit} items` };
    case 'minLength':
      return { path, message: p.limit === 1 ? 'must not be empty' : `must have at least ${p.limit} characters` };
    case 'uniqueItems':
      return { path, message: `must not repeat a value (items ${p.j} and ${p.i} are equal)` };
    case 'exclusiveMinimum':
      return { path, message: `must be greater than ${p.limit}` };
    case 'minimum':
      return { path, message: `must be at least ${p.limit}` };
    case 'maximum':
      return { path, message: `must be at most ${p.limit}` };
    case 'format':
      return {
        path,
        message:
          p.format === 'date-time' ? 'must be an ISO 8601 date-time with a time zone' : `must be a valid ${p.format}`,
      };
    default:
      return { path, message: err.message ?? 'is invalid' };
  }
}
