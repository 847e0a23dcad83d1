// Route schemas of the REST API (schemas/api/rest-*.json) compiled with this scope's own ajv. Query strings are
// coerced to the declared types (`limit=10`; `limit=abc` stays an error), bodies are taken as sent, and unknown
// properties are errors rather than silently dropped. A failure becomes a 400 naming one field and why.
import type { Ajv, ErrorObject } from 'ajv';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { createAjv } from '../../src/platform/validation/ajv.ts';
import { describeAjvError, ISSUE_WORDING, mustBeType, type Wording } from '../../src/platform/validation/ajv-errors.ts';
import { RestApiError } from './rest-error.ts';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date YYYY-MM-DD that exists (no 2026-02-30). */
export function isCalendarDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}

function restAjv(coerceTypes: boolean): Ajv {
  const ajv = createAjv({ allErrors: false, useDefaults: true, coerceTypes, verbose: true });
  const isDateTime = ajv.compile({ type: 'string', format: 'date-time' });
  ajv.addFormat('date-or-date-time', (s: string) => isCalendarDate(s) || (isDateTime(s) as boolean));
  return ajv;
}

const queryAjv = restAjv(true);
const bodyAjv = restAjv(false);

export const restValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema as object);

/** This API's own words where they differ from the project's: types with articles, enum values bare, examples. */
const REST_WORDING: Wording = {
  ...ISSUE_WORDING,
  type: mustBeType,
  enum: (p) => `must be one of ${(p.allowedValues as unknown[]).join(', ')}`,
  maxLength: (p) => `must have at most ${p.limit} characters`,
  maxProperties: (p) => `must have at most ${p.limit} keys`,
  minProperties: (_p, err) => {
    const known = Object.keys((err.parentSchema as { properties?: object } | undefined)?.properties ?? {});
    return `must set at least one of ${known.join(', ')}`;
  },
  format: (p) =>
    p.format === 'date-time'
      ? 'must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T12:00:00Z'
      : p.format === 'date-or-date-time'
        ? 'must be an ISO 8601 date (YYYY-MM-DD) or date-time with a time zone'
        : `must be a valid ${p.format}`,
};

const LOCATION: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** The 400 for a failed route schema: `details.field` names the value (dotted path), `details.reason` says why. */
export function validationError(errors: FastifySchemaValidationError[], context: string | undefined): RestApiError {
  const location = (context && LOCATION[context]) ?? 'request';
  const { path, message: reason } = describeAjvError(errors[0] as ErrorObject, REST_WORDING);
  if (path.length === 0) {
    const what = location === 'body' ? 'The request body' : `The ${location}`;
    return new RestApiError('invalid_request', `${what} ${reason}.`, { location, reason });
  }
  const field = path.join('.');
  const label = location === 'query' ? 'Query parameter' : location === 'path' ? 'Path parameter' : 'Field';
  return new RestApiError('invalid_request', `${label} ${field} ${reason}.`, { field, reason, location });
}
