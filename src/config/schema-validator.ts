// Configuration's ajv and its wording of schema errors: ajv's own messages, except where a YAML author wants the
// property named (`unknown property 'rpmm'`) or the allowed values listed; issues are reported at the object at fault.
import type { Ajv, ErrorObject } from 'ajv';
import { createAjv } from '../validation/ajv.ts';
import { describeAjvError, ISSUE_WORDING, type Wording } from '../validation/ajv-errors.ts';

/** One ajv instance for configuration: every error, defaults applied, scalar types coerced. */
export function createConfigAjv(): Ajv {
  // coerceTypes: `${PORT}` inside a YAML flow map must stay quoted, so "8080" becomes 8080 where a number is expected.
  return createAjv({ allErrors: true, useDefaults: true, coerceTypes: true });
}

const CONFIG_WORDING: Wording = {
  additionalProperties: (p) => `unknown property '${p.additionalProperty}'`,
  enum: ISSUE_WORDING.enum,
  const: (p) => `must be ${JSON.stringify(p.allowedValue)}`,
};

/** ajv errors as issues with path segments relative to `base`; drops the noise of `if` wrappers. */
export function ajvIssues(
  errors: ErrorObject[] | null | undefined,
  base: readonly (string | number)[] = [],
): { segments: (string | number)[]; message: string }[] {
  return (errors ?? [])
    .filter((err) => err.keyword !== 'if')
    .map((err) => {
      const { path, message } = describeAjvError(err, CONFIG_WORDING, { propertyErrorsAt: 'object' });
      return { segments: [...base, ...path], message };
    });
}
