// The public API scope's error and not-found handlers: every failure under /api/public answers in its envelope
// (`{ message, error }`), and an unexpected one is logged once here with an error id the caller also sees.
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../src/platform/telemetry/logger.ts';
import { StatementTimeoutError } from '../../src/platform/store/database.ts';
import { STORE_UNREACHABLE_MESSAGE, storeUnreachable } from '../../src/platform/store/store-unreachable.ts';
import { invalidRequestData, PublicApiError, REQUEST_TIMED_OUT, type PublicErrorBody } from './public-error.ts';
import { describeAjvError } from '../../src/platform/validation/ajv-errors.ts';

const FRAMING_ERRORS: Record<string, [number, PublicErrorBody['error']]> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'UnsupportedMediaTypeError'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'PayloadTooLargeError'],
};

/** Langfuse's answer when a read runs out of resources: 422, so that clients narrow the query rather than retry it. */
const requestTimedOut = (err: StatementTimeoutError) => ({
  status: 422,
  body: {
    message:
      `Your query did not finish within its time limit (${err.timeoutMs} ms). Please narrow your request with more ` +
      'specific filters (e.g. a shorter time range, a name, a userId or a sessionId).',
    error: REQUEST_TIMED_OUT,
  } satisfies PublicErrorBody,
});

function toPublicError(err: FastifyError): PublicApiError | { status: number; body: PublicErrorBody } | undefined {
  if (err instanceof PublicApiError) return err;
  if (err instanceof StatementTimeoutError) return requestTimedOut(err);
  if (err.validation)
    return invalidRequestData(err.validation.map((e) => describeAjvError(e as Parameters<typeof describeAjvError>[0])));
  const framing = err.code ? FRAMING_ERRORS[err.code] : undefined;
  if (framing) return { status: framing[0], body: { message: err.message, error: framing[1] } };
  // Fastify's own 4xx (JSON that does not parse, an empty JSON body, a bad Content-Length).
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status, body: { message: err.message, error: 'InvalidRequestError' } };
  if (storeUnreachable(err))
    return new PublicApiError('ServiceUnavailableError', STORE_UNREACHABLE_MESSAGE, { cause: err });
  return undefined;
}

export function publicErrorHandler(log: Logger) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof StatementTimeoutError)
      log.warn('public API query timed out', { method: req.method, url: req.url, timeoutMs: err.timeoutMs });
    const known = toPublicError(err);
    if (known) return reply.code(known.status).send(known.body);
    const errorId = randomUUID();
    log.error('public API request failed', {
      errorId,
      method: req.method,
      url: req.url,
      error: err.message,
      stack: err.stack,
    });
    const body: PublicErrorBody = {
      message: `Internal Server Error (error id ${errorId})`,
      error: 'InternalServerError',
    };
    return reply.code(500).send(body);
  };
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** 404 for an unknown path, 405 (with Allow) for a known path called with another method; neither needs a key. */
export function publicNotFoundHandler(app: FastifyInstance) {
  return (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?', 1)[0];
    const allowed = METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      const body: PublicErrorBody = {
        message: `Method ${req.method} is not allowed on ${path}; use ${allowed.join(' or ')}`,
        error: 'MethodNotAllowedError',
      };
      return reply.code(405).send(body);
    }
    const body: PublicErrorBody = {
      message: `No public API endpoint at ${req.method} ${path}`,
      error: 'NotFoundError',
    };
    return reply.code(404).send(body);
  };
}
