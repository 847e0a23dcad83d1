// The admin port's own answers outside its surfaces — /health, /ready, /metrics, the dashboard's static files, and
// paths no surface serves — in one envelope, the REST API's `{error: {code, message, details}}` (docs/rest-api.md).
// /v1, /api/public, /api/public/scim and /dashboard/api set their own handlers in their scopes; all are built on
// admin/error-handler.ts.
import { storeUnreachable } from '../src/platform/store/store-unreachable.ts';
import type { Logger } from '../src/platform/telemetry/logger.ts';
import { answerOf, surfaceErrorHandler, surfaceNotFoundHandler } from './error-handler.ts';
import { restInternalError, storeUnavailable } from './rest-api/error-handler.ts';
import { RestApiError } from './rest-api/rest-error.ts';

const SURFACES = '/v1 (REST API), /api/public (public API), /dashboard/ (dashboard), /health, /ready, /metrics';

export const adminNotFoundHandler = surfaceNotFoundHandler((method, path) =>
  answerOf(
    new RestApiError('not_found', `No admin route ${method} ${path}. The admin port serves ${SURFACES}.`, {
      method,
      path,
    }),
  ),
);

/** A request that cannot be read is 400; anything else is a 500 whose error id is logged once. */
export const adminErrorHandler = (log: Logger) =>
  surfaceErrorHandler(log, {
    name: 'admin',
    known: (err) => {
      const status = err.statusCode ?? 500;
      if (status >= 400 && status < 500)
        return answerOf(new RestApiError('invalid_request', err.message, { reason: err.message }));
      if (storeUnreachable(err)) return answerOf(storeUnavailable());
      return undefined;
    },
    internal: restInternalError,
  });

/** A path Fastify could not decode (a malformed percent-escape), outside every surface. */
export function undecodablePath(err: Error) {
  return new RestApiError('invalid_request', `The request path cannot be decoded: ${err.message}.`, {
    reason: 'malformed URL',
    location: 'path',
  });
}
