// The admin port's answer to a request Node's HTTP parser refused (src/gateway/server/parse-refusal.ts), in the envelope of
// the surface its request line names: REST /v1, the public API, the dashboard's API; any other path, or a request
// line that cannot be read, in the REST envelope, the admin port's own (docs/decisions.md "Requests the HTTP parser
// refuses").
import type { Socket } from 'node:net';
import {
  describeParseRefusal,
  rawJsonResponse,
  type ClientError,
  type ParseRefusal,
} from '../src/gateway/server/parse-refusal.ts';
import { DashboardApiError, type DashboardErrorCode } from './dashboard-api/dashboard-error.ts';
import { PublicApiError, type PublicErrorName } from './public-api/public-error.ts';
import { requestIdFor } from './rest-api/request-id.ts';
import { RestApiError, type RestErrorCode } from './rest-api/rest-error.ts';

const PUBLIC_NAMES: Record<ParseRefusal['kind'], PublicErrorName> = {
  header_too_large: 'RequestHeaderFieldsTooLargeError',
  invalid_header: 'InvalidRequestError',
  invalid_request: 'InvalidRequestError',
  request_too_large: 'PayloadTooLargeError',
  request_timeout: 'RequestTimeoutError',
};

/** The REST and dashboard code of a refusal: their tables have no 413, so an oversized chunk extension is a 400. */
const codeOf = (kind: ParseRefusal['kind']): RestErrorCode & DashboardErrorCode =>
  kind === 'request_too_large' ? 'invalid_request' : kind;

/** Status and body of the refusal on the surface `path` belongs to; the REST envelope also carries x-request-id. */
function answerOf(refusal: ParseRefusal): { status: number; body: unknown; headers: Record<string, string> } {
  const path = refusal.path ?? '';
  if (path.startsWith('/api/public')) {
    const e = new PublicApiError(PUBLIC_NAMES[refusal.kind], refusal.message);
    return { status: e.status, body: e.body, headers: {} };
  }
  if (path.startsWith('/dashboard/api')) {
    const e = new DashboardApiError(codeOf(refusal.kind), refusal.message);
    return { status: e.status, body: e.body(), headers: {} };
  }
  const e = new RestApiError(codeOf(refusal.kind), refusal.message, { reason: refusal.kind });
  // The client's X-Request-ID cannot be trusted from bytes the parser refused: the service makes one.
  return { status: e.status, body: e.body(), headers: { 'x-request-id': requestIdFor(undefined) } };
}

/** Fastify's `clientErrorHandler`: answers in the envelope, then closes the connection (as Node does). */
export function adminClientErrorHandler(error: Error, socket: Socket): void {
  // Fastify types the error as its ConnectionError; what arrives is Node's parser error (rawPacket a Buffer).
  const err = error as ClientError;
  // A reset connection has nobody to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const { status, body, headers } = answerOf(describeParseRefusal(err));
    socket.write(rawJsonResponse(status, body, headers));
  }
  socket.destroy();
}
