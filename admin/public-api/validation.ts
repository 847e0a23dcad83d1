// Route schemas of the public API (schemas/api/public-*.json) compiled with this scope's own ajv: query strings are
// coerced (`?limit=10`, a single `?tags=a` becomes ['a']), bodies are not. Parameters and fields a schema does not
// name are dropped first, as Langfuse ignores them (unknown-fields.ts); the ones it names are checked strictly.
import type { FastifySchemaCompiler } from 'fastify';
import { createAjv } from '../../src/platform/validation/ajv.ts';
import { unknownFieldStripper } from './unknown-fields.ts';

const queryAjv = createAjv({ allErrors: true, useDefaults: true, coerceTypes: 'array' });
const bodyAjv = createAjv({ allErrors: true, useDefaults: true });

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
