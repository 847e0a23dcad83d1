import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats ships CommonJS; its default export is the function under ESM interop.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** One ajv instance for configuration: every error, defaults applied, scalar types coerced. */
export function createConfigAjv(): Ajv {
  // coerceTypes: `${PORT}` inside a YAML flow map must stay quoted, so "8080" becomes 8080 where a number is expected.
  const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: true, strict: false });
  addFormats(ajv);
  return ajv;
}

function decodePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** ajv errors as issues with path segments relative to `base`; drops the noise of `if` wrappers. */
export function ajvIssues(
  errors: ErrorObject[] | null | undefined,
  base: readonly (string | number)[] = [],
): { segments: (string | number)[]; message: string }[] {
  const out: { segments: (string | number)[]; message: string }[] = [];
  for (const err of errors ?? []) {
    if (err.keyword === 'if') continue;
    const segments = [...base, ...decodePointer(err.instancePath)];
    let message = err.message ?? 'is invalid';
    if (err.keyword === 'additionalProperties') {
      message = `unknown property '${(err.params as { additionalProperty: string }).additionalProperty}'`;
    } else if (err.keyword === 'enum') {
      message = `must be one of ${(err.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    } else if (err.keyword === 'const') {
      message = `must be ${JSON.stringify((err.params as { allowedValue: unknown }).allowedValue)}`;
    }
    out.push({ segments, message });
  }
  return out;
}
