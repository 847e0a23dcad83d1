// The one place ajv instances are made, with the project's options: ajv's strict mode off (schemas carry `x-`
// annotation keywords, union types and `required` inside `if`/`then`) and the ajv-formats formats known.
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats ships CommonJS; its default export is the function under ESM interop.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** A new ajv; `options` are the caller's own choices of what to report and what to change in the data. */
export function createAjv(options: Pick<Options, 'allErrors' | 'useDefaults' | 'coerceTypes' | 'verbose'> = {}): Ajv {
  return addFormats(new Ajv({ ...options, strict: false }));
}
