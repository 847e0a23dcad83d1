// The public API scope's error and not-found handlers: every failure under /api/public answers in its envelope
// (`{ message, error }`); the skeleton is admin/error-handler.ts.
import type { FastifyError, FastifyInstance } from 'fastify';
import type { Logger } from '../../src/platform/telemetry/logger.ts';
import { StatementTimeoutError } from '../../src/platform/store/database.ts';
import { STORE_UNREACHABLE_MESSAGE, storeUnreachable } from '../../src/platform/store/store-unreachable.ts';
import { describeAjvError } from '../../src/platform/validation/ajv-errors.ts';
import { surfaceErrorHandler, surfaceNotFoundHandler, type ErrorAnswer } from '../error-handler.ts';
import { invalidRequestData, PublicApiError, REQUEST_TIMED_OUT, type PublicErrorBody } from './public-error.ts';

const FRAMING_ERRORS: Record<string, [number, PublicErrorBody['error']]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'UnsupportedMediaTypeError'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'PayloadTooLargeError'],
};

const answer = (status: number, body: PublicErrorBody): ErrorAnswer => ({ status, body });

/** Langfuse's answer when a read runs out of resources: 422, so that clients narrow the query rather than retry it. */
const requestTimedOut = (err: StatementTimeoutError) =>
  answer(422, {
    message:
      `Your query did not finish within its time limit (${err.timeoutMs} ms). Please narrow your request with more ` +
      'specific filters (e.g. a shorter time range, a name, a userId or a sessionId).',
    error: REQUEST_TIMED_OUT,
  });

function toPublicError(err: FastifyError): ErrorAnswer | undefined {
  if (err instanceof PublicApiError) return err;
  if (err instanceof StatementTimeoutError) return requestTimedOut(err);
  if (err.validation)
    return invalidRequestData(err.validation.map((e) => describeAjvError(e as Parameters<typeof describeAjvError>[0])));
  const framing = err.code ? FRAMING_ERRORS[err.code] : undefined;
  if (framing) return answer(framing[0], { message: err.message, error: framing[1] });
  // Fastify's own 4xx (JSON that does not parse, an empty JSON body, a bad Content-Length).
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return answer(status, { message: err.message, error: 'InvalidRequestError' });
  if (storeUnreachable(err))
    return new PublicApiError('ServiceUnavailableError', STORE_UNREACHABLE_MESSAGE, { cause: err });
  return undefined;
}

export const publicErrorHandler = (log: Logger) =>
  surfaceErrorHandler(log, {
    name: 'public API',
    known: toPublicError,
    internal: (errorId) =>
      answer(500, { message: `Internal Server Error (error id ${errorId})`, error: 'InternalServerError' }),
    warnsOnTimeout: true,
  });

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** 404 for an unknown path, 405 (with Allow) for a known path called with another method; neither needs a key. */
export const publicNotFoundHandler = (app: FastifyInstance) =>
  surfaceNotFoundHandler((method, path) => {
    const allowed = METHODS.filter((m) => app.findRoute({ method: m, url: path }) !== null);
    if (allowed.length === 0)
      return answer(404, { message: `No public API endpoint at ${method} ${path}`, error: 'NotFoundError' });
    return {
      ...answer(405, {
        message: `Method ${method} is not allowed on ${path}; use ${allowed.join(' or ')}`,
        error: 'MethodNotAllowedError',
      }),
      headers: { allow: allowed.join(', ') },
    };
  });
