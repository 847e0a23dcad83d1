// The REST API scope's error and not-found handlers: every failure under /v1 answers in its envelope
// (`{error: {code, message, details}}`, docs/rest-api.md); the skeleton is admin/error-handler.ts.
import type { FastifyError } from 'fastify';
import { StatementTimeoutError } from '../../src/platform/store/database.ts';
import { STORE_UNREACHABLE_MESSAGE, storeUnreachable } from '../../src/platform/store/store-unreachable.ts';
import type { Logger } from '../../src/platform/telemetry/logger.ts';
import { JSON_TOO_DEEP, MAX_JSON_DEPTH } from '../../src/platform/validation/json-depth.ts';
import { answerOf, surfaceErrorHandler, surfaceNotFoundHandler } from '../error-handler.ts';
import { requestIdOf } from './request-guard.ts';
import { RestApiError } from './rest-error.ts';
import { validationError } from './validation.ts';

const FRAMING: Record<string, { field?: string; reason: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { field: 'Content-Type', reason: 'must be application/json' },
  FST_ERR_CTP_INVALID_JSON_BODY: { reason: 'is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { reason: 'is empty but Content-Type is application/json' },
  FST_ERR_CTP_BODY_TOO_LARGE: { reason: 'is too large' },
  [JSON_TOO_DEEP]: { reason: `nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep` },
};

function toRestError(err: FastifyError): RestApiError | undefined {
  if (err instanceof RestApiError) return err;
  if (err instanceof StatementTimeoutError)
    return new RestApiError(
      'query_timeout',
      `The query did not finish within its time limit (${err.timeoutMs} ms). Narrow it (a shorter startDate to ` +
        'endDate range, a status or an agent) and try again.',
      { reason: 'query timeout', timeoutMs: err.timeoutMs },
    );
  if (err.validation) return validationError(err.validation, err.validationContext);
  const framing = err.code ? FRAMING[err.code] : undefined;
  if (framing) {
    const message = framing.field
      ? `Header ${framing.field} ${framing.reason}.`
      : `The request body ${framing.reason}.`;
    return new RestApiError(
      'invalid_request',
      message,
      framing.field
        ? { field: framing.field, reason: framing.reason, location: 'header' }
        : { reason: framing.reason, location: 'body' },
    );
  }
  // Fastify's other 4xx (a bad Content-Length, an unsupported encoding): the request cannot be read.
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return new RestApiError('invalid_request', err.message, { reason: err.message });
  if (storeUnreachable(err)) return storeUnavailable();
  return undefined;
}

/** 503 in the REST API's envelope: the store cannot be reached (the admin port's own paths answer it too). */
export const storeUnavailable = () =>
  new RestApiError('service_unavailable', STORE_UNREACHABLE_MESSAGE, { reason: 'store unreachable' });

/** 500 in the REST API's envelope, naming the error id that was logged (the admin port's own paths answer it too). */
export const restInternalError = (errorId: string) =>
  answerOf(new RestApiError('internal_error', `Internal server error (error id ${errorId}).`, { errorId }));

export const restErrorHandler = (log: Logger) =>
  surfaceErrorHandler(log, {
    name: 'REST API',
    known: (err) => answerOf(toRestError(err)),
    internal: restInternalError,
    warnsOnTimeout: true,
    requestFields: (req) => ({ requestId: requestIdOf(req), method: req.method, url: req.url }),
  });

/** Unknown paths, and known paths with another method: REST has no 405, so both are not_found. */
export const restNotFoundHandler = surfaceNotFoundHandler((method, path) =>
  answerOf(new RestApiError('not_found', `No REST API route ${method} ${path}.`, { method, path })),
);
