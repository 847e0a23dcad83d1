// The SCIM scope's error and not-found handlers: every failure under /api/public/scim, a refused key too, answers in
// the SCIM error schema (scim-error.ts); the skeleton is admin/error-handler.ts.
import type { FastifyError } from 'fastify';
import { UserExistsError } from '../../src/platform/store/repos/users.ts';
import { STORE_UNREACHABLE_MESSAGE, storeUnreachable } from '../../src/platform/store/store-unreachable.ts';
import type { Logger } from '../../src/platform/telemetry/logger.ts';
import { LastOwnerError } from '../../src/observability/users/change-user.ts';
import { answerOf, surfaceErrorHandler, surfaceNotFoundHandler } from '../error-handler.ts';
import { PublicApiError } from '../public-api/public-error.ts';
import { ScimError } from './scim-error.ts';

function toScimError(err: FastifyError): ScimError | undefined {
  if (err instanceof ScimError) return err;
  if (err instanceof PublicApiError) return new ScimError(err.status, err.message);
  if (err instanceof UserExistsError) return new ScimError(409, err.message, 'uniqueness');
  if (err instanceof LastOwnerError) return new ScimError(409, err.message, 'mutability');
  if (storeUnreachable(err)) return new ScimError(503, STORE_UNREACHABLE_MESSAGE);
  // Fastify's own 4xx: a body that is not JSON, an unsupported media type, a body too large.
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500)
    return new ScimError(err.statusCode, err.message, err.statusCode === 400 ? 'invalidSyntax' : undefined);
  return undefined;
}

export const scimErrorHandler = (log: Logger) =>
  surfaceErrorHandler(log, {
    name: 'SCIM',
    known: (err) => answerOf(toScimError(err)),
    internal: (errorId) => answerOf(new ScimError(500, `Internal Server Error (error id ${errorId})`)),
  });

export const scimNotFoundHandler = surfaceNotFoundHandler((method, path) =>
  answerOf(new ScimError(404, `No SCIM endpoint at ${method} ${path}`)),
);
