// The one skeleton of the admin port's error and not-found handlers (REST /v1, the public API, SCIM, the dashboard's
// API, the port's own paths). A surface says how the failures it knows answer in its envelope and what its 500 says;
// the skeleton sends that answer, or logs an unexpected failure once, with an error id the caller also sees.
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { StatementTimeoutError } from '../src/platform/store/database.ts';
import type { Logger } from '../src/platform/telemetry/logger.ts';

/** What a surface answers: status, body in its envelope, and any headers (retry-after, allow). */
export interface ErrorAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface SurfaceErrors {
  /** The surface in its log lines: `<name> request failed`, `<name> query timed out`. */
  name: string;
  /** The answer to a failure the surface knows; undefined for an unexpected one (a 500). */
  known(err: FastifyError): ErrorAnswer | undefined;
  /** The 500 of an unexpected failure, naming the error id that was logged. */
  internal(errorId: string): ErrorAnswer;
  /** The surfaces that read stored data log a query past its time limit as a warning. */
  warnsOnTimeout?: boolean;
  /** The fields that place a request in the surface's log lines; method and url unless said. */
  requestFields?(req: FastifyRequest): Record<string, unknown>;
}

const methodAndUrl = (req: FastifyRequest) => ({ method: req.method, url: req.url });

function send(reply: FastifyReply, answer: ErrorAnswer) {
  if (answer.headers) reply.headers(answer.headers);
  return reply.code(answer.status).send(answer.body);
}

export function surfaceErrorHandler(log: Logger, surface: SurfaceErrors) {
  const requestFields = surface.requestFields ?? methodAndUrl;
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    if (surface.warnsOnTimeout && err instanceof StatementTimeoutError)
      log.warn(`${surface.name} query timed out`, { ...requestFields(req), timeoutMs: err.timeoutMs });
    const known = surface.known(err);
    if (known) return send(reply, known);
    const errorId = randomUUID();
    log.error(`${surface.name} request failed`, {
      errorId,
      ...requestFields(req),
      error: err.message,
      stack: err.stack,
    });
    return send(reply, surface.internal(errorId));
  };
}

/** The not-found handler of a surface: `answer` is given the method and the path without its query. */
export function surfaceNotFoundHandler(answer: (method: string, path: string) => ErrorAnswer) {
  return (req: FastifyRequest, reply: FastifyReply) => send(reply, answer(req.method, req.url.split('?', 1)[0]));
}

/** An error that carries its status and builds its envelope (REST, dashboard, SCIM). */
interface EnvelopedError {
  status: number;
  body(): unknown;
}

/** The answer of an enveloped error; none for none, so a surface's mapping can be passed through. */
export function answerOf(err: EnvelopedError): ErrorAnswer;
export function answerOf(err: EnvelopedError | undefined): ErrorAnswer | undefined;
export function answerOf(err: EnvelopedError | undefined): ErrorAnswer | undefined {
  return err && { status: err.status, body: err.body() };
}
