// Unknown query parameters and body fields are dropped before validation, as Langfuse's (zod) schemas strip them: an
// SDK or tool that sends one extra field keeps working, while the fields a schema names stay strictly checked. The
// walk follows a schema where it is unambiguous (properties, items, additionalProperties, $ref) and, at anyOf / oneOf,
// takes the first branch the value fits once stripped.
import type { Ajv, ValidateFunction } from 'ajv';
import { isObject } from '../../src/platform/validation/json-object.ts';

type Schema = Record<string, any>;

/** A function that removes, in place, the fields `root` does not name wherever it closes an object. */
export function unknownFieldStripper(ajv: Ajv, root: Schema): (value: unknown) => void {
  const branchValidators = new Map<Schema, ValidateFunction>();
  const fits = (branch: Schema, value: unknown): boolean => {
    let validate = branchValidators.get(branch);
    if (!validate) {
      validate = ajv.compile(root.definitions ? { ...branch, definitions: root.definitions } : branch);
      branchValidators.set(branch, validate);
    }
    const copy = structuredClone(value);
    strip(branch, copy);
    return validate(copy);
  };
  const resolve = (schema: Schema): Schema => {
    const ref = typeof schema.$ref === 'string' ? /^#\/definitions\/(.+)$/.exec(schema.$ref) : null;
    return ref ? (root.definitions?.[ref[1]] ?? schema) : schema;
  };
  function strip(given: Schema, value: unknown): void {
    const schema = resolve(given);
    const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (branches) {
      const chosen = branches.find((b) => fits(b, value));
      if (chosen) strip(chosen, value);
    }
    if (Array.isArray(value)) {
      if (isObject(schema.items)) for (const item of value) strip(schema.items, item);
      return;
    }
    if (!isObject(value)) return;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const field of Object.keys(value)) {
      if (Object.hasOwn(properties, field)) strip(properties[field], value[field]);
      else if (schema.additionalProperties === false && schema.properties) delete value[field];
      else if (isObject(schema.additionalProperties)) strip(schema.additionalProperties, value[field]);
    }
  }
  return (value) => strip(root, value);
}
