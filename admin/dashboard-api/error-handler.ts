// The /dashboard/api scope's error and not-found handlers: every failure answers in the dashboard envelope, and an
// unexpected one is logged once here with an error id the caller also sees.
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { StatementTimeoutError } from '../../src/platform/store/database.ts';
import { STORE_UNREACHABLE_MESSAGE, storeUnreachable } from '../../src/platform/store/store-unreachable.ts';
import type { Logger } from '../../src/platform/telemetry/logger.ts';
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

export function dashboardErrorHandler(log: Logger) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof StatementTimeoutError)
      log.warn('dashboard API query timed out', { method: req.method, url: req.url, timeoutMs: err.timeoutMs });
    const known = toDashboardError(err);
    if (known) {
      if (known.retryAfter !== undefined) reply.header('retry-after', String(known.retryAfter));
      // Fastify's framing errors keep their status (413, 415); the code says what kind of failure it is.
      const status = known === err || err.validation ? known.status : (err.statusCode ?? known.status);
      return reply.code(status).send(known.body());
    }
    const errorId = randomUUID();
    log.error('dashboard API request failed', {
      errorId,
      method: req.method,
      url: req.url,
      error: err.message,
      stack: err.stack,
    });
    return reply.code(500).send(new DashboardApiError('internal_error', `Internal error (error id ${errorId})`).body());
  };
}

export function dashboardNotFoundHandler(req: FastifyRequest, reply: FastifyReply) {
  const path = req.url.split('?', 1)[0];
  return reply
    .code(404)
    .send(new DashboardApiError('not_found', `No dashboard API route at ${req.method} ${path}`).body());
}
