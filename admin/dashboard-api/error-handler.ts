// The /dashboard/api scope's error and not-found handlers: every failure answers in the dashboard envelope
// (`{error: {code, message}}`); the skeleton is admin/error-handler.ts.
import type { FastifyError } from 'fastify';
import { StatementTimeoutError } from '../../src/platform/store/database.ts';
import { STORE_UNREACHABLE_MESSAGE, storeUnreachable } from '../../src/platform/store/store-unreachable.ts';
import type { Logger } from '../../src/platform/telemetry/logger.ts';
import { answerOf, surfaceErrorHandler, surfaceNotFoundHandler, type ErrorAnswer } from '../error-handler.ts';
import { DashboardApiError } from './dashboard-error.ts';

function toDashboardError(err: FastifyError): DashboardApiError | undefined {
  if (err instanceof DashboardApiError) return err;
  if (err instanceof StatementTimeoutError)
    return new DashboardApiError(
      'query_timeout',
      `The query did not finish within its time limit (${err.timeoutMs} ms). Narrow it (a shorter time range, ` +
        'or more filters) and try again.',
      { cause: err },
    );
  if (err.validation) return new DashboardApiError('invalid_request', `Invalid request: ${err.message}`);
  // Fastify's own 4xx (JSON that does not parse, an unsupported media type, a body too large).
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500)
    return new DashboardApiError('invalid_request', err.message);
  if (storeUnreachable(err))
    return new DashboardApiError('service_unavailable', STORE_UNREACHABLE_MESSAGE, { cause: err });
  return undefined;
}

function knownAnswer(err: FastifyError): ErrorAnswer | undefined {
  const known = toDashboardError(err);
  if (!known) return undefined;
  // Fastify's framing errors keep their status (413, 415); the code says what kind of failure it is.
  const status = known === err || err.validation ? known.status : (err.statusCode ?? known.status);
  const headers = known.retryAfter === undefined ? undefined : { 'retry-after': String(known.retryAfter) };
  return { status, body: known.body(), headers };
}

export const dashboardErrorHandler = (log: Logger) =>
  surfaceErrorHandler(log, {
    name: 'dashboard API',
    known: knownAnswer,
    internal: (errorId) => answerOf(new DashboardApiError('internal_error', `Internal error (error id ${errorId})`)),
    warnsOnTimeout: true,
  });

export const dashboardNotFoundHandler = surfaceNotFoundHandler((method, path) =>
  answerOf(new DashboardApiError('not_found', `No dashboard API route at ${method} ${path}`)),
);
