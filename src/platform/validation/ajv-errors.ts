// One describer of ajv errors for every surface: where the error is (decoded from its JSON Pointer) and why, worded
// by keyword. The wording below is the project's; a surface that words some keywords its own way passes its table,
// and a keyword no table words keeps ajv's own message.
import type { ErrorObject } from 'ajv';
import { decodePointer } from './json-pointer.ts';
import type { ValidationIssue } from './validation-issue.ts';

/** Why a value failed one keyword, from the error's params. */
export type Reason = (params: Record<string, any>, err: ErrorObject) => string;

export type Wording = Readonly<Partial<Record<string, Reason>>>;

export const ISSUE_WORDING: Wording = {
  required: () => 'is required',
  additionalProperties: () => 'is not a known field',
  enum: (p) => `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
  minItems: (p) => (p.limit === 1 ? 'must not be empty' : `must have at least ${p.limit} items`),
  minLength: (p) => (p.limit === 1 ? 'must not be empty' : `must have at least ${p.limit} characters`),
  uniqueItems: (p) => `must not repeat a value (items ${p.j} and ${p.i} are equal)`,
  exclusiveMinimum: (p) => `must be greater than ${p.limit}`,
  minimum: (p) => `must be at least ${p.limit}`,
  maximum: (p) => `must be at most ${p.limit}`,
  format: (p) =>
    p.format === 'date-time' ? 'must be an ISO 8601 date-time with a time zone' : `must be a valid ${p.format}`,
};

const ARTICLE: Record<string, string> = { integer: 'an integer', object: 'an object', array: 'an array', null: 'null' };

/** `type` worded with articles (`must be an integer`, `must be a string or null`), for surfaces that want it. */
export const mustBeType: Reason = (p) => {
  const types: unknown[] = Array.isArray(p.type) ? p.type : [p.type];
  return `must be ${types.map((t) => ARTICLE[String(t)] ?? `a ${String(t)}`).join(' or ')}`;
};

export interface DescribeOptions {
  /**
   * Where a missing (`required`) or unknown (`additionalProperties`) property is reported: at the property itself
   * (`['body', 'name']: is required`), or at the object that should or should not have it.
   */
  propertyErrorsAt?: 'property' | 'object';
}

/** The issue an ajv error reports, worded by `wording` (the project's unless a surface passes its own). */
export function describeAjvError(
  err: ErrorObject,
  wording: Wording = ISSUE_WORDING,
  options: DescribeOptions = {},
): ValidationIssue {
  const path = decodePointer(err.instancePath);
  const p = err.params as Record<string, any>;
  const reason = wording[err.keyword];
  const message = reason ? reason(p, err) : (err.message ?? 'is invalid');
  if (options.propertyErrorsAt === 'object') return { path, message };
  if (err.keyword === 'required') return { path: [...path, p.missingProperty], message };
  if (err.keyword === 'additionalProperties') return { path: [...path, p.additionalProperty], message };
  return { path, message };
}
