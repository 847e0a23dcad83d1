// Configuration's ajv and its wording of schema errors: ajv's own messages, except where a YAML author wants the
// property named (`unknown property 'rpmm'`) or the allowed values listed; issues are reported at the object at fault.
import type { Ajv, ErrorObject } from 'ajv';
import { createAjv } from '../validation/ajv.ts';
import { closestName } from './closest-name.ts';
import { describeAjvError, ISSUE_WORDING, type Wording } from '../validation/ajv-errors.ts';

/** One ajv instance for configuration: every error, defaults applied, scalar types coerced. */
export function createConfigAjv(): Ajv {
  // coerceTypes: `${PORT}` inside a YAML flow map must stay quoted, so "8080" becomes 8080 where a number is expected.
  // verbose: an error carries its schema, whose properties name what a misspelt key may have meant.
  return createAjv({ allErrors: true, useDefaults: true, coerceTypes: true, verbose: true });
}

/** `unknown property 'rpmm' (did you mean 'rpm'?)`. */
function unknownProperty(p: Record<string, any>, err: ErrorObject): string {
  const known = Object.keys((err.parentSchema as { properties?: object } | undefined)?.properties ?? {});
  const near = closestName(String(p.additionalProperty), known);
  return `unknown property '${p.additionalProperty}'${near ? ` (did you mean '${near}'?)` : ''}`;
}

/** One branch of a `oneOf` in words: a constant, or an integer with its bounds. */
function branchWords(branch: { const?: unknown; type?: string; minimum?: number; maximum?: number }): string {
  if ('const' in branch) return JSON.stringify(branch.const);
  return `an integer from ${branch.minimum} to ${branch.maximum}`;
}

/** `must be "auto" or an integer from 1 to 256`: one issue for a value no branch of a `oneOf` takes. */
function oneOfBranches(_p: Record<string, any>, err: ErrorObject): string {
  return `must be ${(err.schema as Parameters<typeof branchWords>[0][]).map(branchWords).join(' or ')}`;
}

const CONFIG_WORDING: Wording = {
  additionalProperties: unknownProperty,
  enum: ISSUE_WORDING.enum,
  const: (p) => `must be ${JSON.stringify(p.allowedValue)}`,
  oneOf: oneOfBranches,
};

/** ajv errors as issues with path segments relative to `base`; drops the noise of `if` wrappers. */
export function ajvIssues(
  errors: ErrorObject[] | null | undefined,
  base: readonly (string | number)[] = [],
): { segments: (string | number)[]; message: string }[] {
  // A value no branch of a oneOf takes is one issue, worded by the oneOf; its branches' own errors are left out.
  const oneOfs = (errors ?? []).filter((err) => err.keyword === 'oneOf').map((err) => `${err.schemaPath}/`);
  return (errors ?? [])
    .filter((err) => err.keyword !== 'if' && !oneOfs.some((path) => err.schemaPath.startsWith(path)))
    .map((err) => {
      const { path, message } = describeAjvError(err, CONFIG_WORDING, { propertyErrorsAt: 'object' });
      return { segments: [...base, ...path], message };
    });
}
