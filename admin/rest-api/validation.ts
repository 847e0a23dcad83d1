// Route schemas of the REST API (schemas/api/rest-*.json) compiled with this scope's own ajv. Query strings are
// coerced to the declared types (`limit=10`; `limit=abc` stays an error), bodies are taken as sent, and unknown
// properties are errors rather than silently dropped. A failure becomes a 400 naming one field and why.
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { RestApiError } from './rest-error.ts';

// ajv-formats ships CommonJS; its default export is the function under ESM interop.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date YYYY-MM-DD that exists (no 2026-02-30). */
export function isCalendarDate(s: string): boolean {
  const m = DATE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}

function createAjv(coerceTypes: boolean): Ajv {
  const ajv = addFormats(new Ajv({ allErrors: false, useDefaults: true, coerceTypes, strict: false, verbose: true }));
  const isDateTime = ajv.compile({ type: 'string', format: 'date-time' });
  ajv.addFormat('date-or-date-time', (s: string) => isCalendarDate(s) || (isDateTime(s) as boolean));
  return ajv;
}

const queryAjv = createAjv(true);
const bodyAjv = createAjv(false);

export const restValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema as object);

const ARTICLE: Record<string, string> = { integer: 'an integer', object: 'an object', array: 'an array', null: 'null' };

function typeName(type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  return types.map((t) => ARTICLE[String(t)] ?? `a ${String(t)}`).join(' or ');
}

function describe(err: ErrorObject): { path: string[]; reason: string } {
  const path =
    err.instancePath === ''
      ? []
      : err.instancePath
          .slice(1)
          .split('/')
          .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const p = err.params as Record<string, any>;
  switch (err.keyword) {
    case 'required':
      return { path: [...path, p.missingProperty], reason: 'is required' };
    case 'additionalProperties':
      return { path: [...path, p.additionalProperty], reason: 'is not a known field' };
    case 'type':
      return { path, reason: `must be ${typeName(p.type)}` };
    case 'enum':
      return { path, reason: `must be one of ${(p.allowedValues as unknown[]).join(', ')}` };
    case 'minimum':
      return { path, reason: `must be at least ${p.limit}` };
    case 'maximum':
      return { path, reason: `must be at most ${p.limit}` };
    case 'minLength':
      return { path, reason: p.limit === 1 ? 'must not be empty' : `must have at least ${p.limit} characters` };
    case 'maxLength':
      return { path, reason: `must have at most ${p.limit} characters` };
    case 'maxProperties':
      return { path, reason: `must have at most ${p.limit} keys` };
    case 'minProperties': {
      const known = Object.keys((err.parentSchema as { properties?: object } | undefined)?.properties ?? {});
      return { path, reason: `must set at least one of ${known.join(', ')}` };
    }
    case 'format':
      return {
        path,
        reason:
          p.format === 'date-time'
            ? 'must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T12:00:00Z'
            : p.format === 'date-or-date-time'
              ? 'must be an ISO 8601 date (YYYY-MM-DD) or date-time with a time zone'
              : `must be a valid ${p.format}`,
      };
    default:
      return { path, reason: err.message ?? 'is invalid' };
  }
}

const LOCATION: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** The 400 for a failed route schema: `details.field` names the value (dotted path), `details.reason` says why. */
export function validationError(errors: FastifySchemaValidationError[], context: string | undefined): RestApiError {
  const location = (context && LOCATION[context]) ?? 'request';
  const { path, reason } = describe(errors[0] as ErrorObject);
  if (path.length === 0) {
    const what = location === 'body' ? 'The request body' : `The ${location}`;
    return new RestApiError('invalid_request', `${what} ${reason}.`, { location, reason });
  }
  const field = path.join('.');
  const label = location === 'query' ? 'Query parameter' : location === 'path' ? 'Path parameter' : 'Field';
  return new RestApiError('invalid_request', `${label} ${field} ${reason}.`, { field, reason, location });
}
