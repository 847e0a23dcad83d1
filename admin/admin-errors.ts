// The admin port's own answers outside its surfaces — /health, /ready, /metrics, the dashboard's static files, and
// paths no surface serves — in one envelope, the REST API's `{error: {code, message, details}}` (spec part 7).
// /v1, /api/public and /dashboard/api keep their own handlers (set in their scopes).
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { storeUnreachable } from '../src/platform/store/store-unreachable.ts';
import type { Logger } from '../src/platform/telemetry/logger.ts';
import { storeUnavailable } from './rest-api/error-handler.ts';
import { RestApiError } from './rest-api/rest-error.ts';

const SURFACES = '/v1 (REST API), /api/public (public API), /dashboard/ (dashboard), /health, /ready, /metrics';
/** A gateway replica's admin port (`svc start --role gateway`). */
const STATUS_ONLY = '/health, /ready and /metrics only (this process runs with --role gateway)';

export function adminNotFoundHandler(statusOnly = false) {
  return (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?', 1)[0];
    const err = new RestApiError(
      'not_found',
      `No admin route ${req.method} ${path}. The admin port serves ${statusOnly ? STATUS_ONLY : SURFACES}.`,
      { method: req.method, path },
    );
    return reply.code(err.status).send(err.body());
  };
}

/** A request that cannot be read is 400; anything else is a 500 whose error id is logged here, once. */
export function adminErrorHandler(log: Logger) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const known = new RestApiError('invalid_request', err.message, { reason: err.message });
      return reply.code(known.status).send(known.body());
    }
    if (storeUnreachable(err)) {
      const unavailable = storeUnavailable();
      return reply.code(unavailable.status).send(unavailable.body());
    }
    const errorId = randomUUID();
    log.error('admin request failed', {
      errorId,
      method: req.method,
      url: req.url,
      error: err.message,
      stack: err.stack,
    });
    const internal = new RestApiError('internal_error', `Internal server error (error id ${errorId}).`, { errorId });
    return reply.code(internal.status).send(internal.body());
  };
}

/** A path Fastify could not decode (a malformed percent-escape), outside every surface. */
export function undecodablePath(err: Error) {
  return new RestApiError('invalid_request', `The request path cannot be decoded: ${err.message}.`, {
    reason: 'malformed URL',
    location: 'path',
  });
}
