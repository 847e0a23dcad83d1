// The REST API scope's error and not-found handlers: every failure under /v1 answers in the spec's envelope, and an
// unexpected one is logged once here, with an error id the caller also sees.
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { StatementTimeoutError } from '../../src/platform/store/database.ts';
import { STORE_UNREACHABLE_MESSAGE, storeUnreachable } from '../../src/platform/store/store-unreachable.ts';
import type { Logger } from '../../src/platform/telemetry/logger.ts';
import { JSON_TOO_DEEP, MAX_JSON_DEPTH } from '../../src/platform/validation/json-depth.ts';
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

export function restErrorHandler(log: Logger) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof StatementTimeoutError)
      log.warn('REST API query timed out', { requestId: requestIdOf(req), url: req.url, timeoutMs: err.timeoutMs });
    const known = toRestError(err);
    if (known) return reply.code(known.status).send(known.body());
    const errorId = randomUUID();
    log.error('REST API request failed', {
      errorId,
      requestId: requestIdOf(req),
      method: req.method,
      url: req.url,
      error: err.message,
      stack: err.stack,
    });
    const internal = new RestApiError('internal_error', `Internal server error (error id ${errorId}).`, { errorId });
    return reply.code(internal.status).send(internal.body());
  };
}

/** Unknown paths, and known paths with another method: the spec has no 405, so both are not_found. */
export function restNotFoundHandler(req: FastifyRequest, reply: FastifyReply) {
  const path = req.url.split('?', 1)[0];
  const err = new RestApiError('not_found', `No REST API route ${req.method} ${path}.`, { method: req.method, path });
  return reply.code(err.status).send(err.body());
}
