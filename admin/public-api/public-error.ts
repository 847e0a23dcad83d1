// Errors of the public API ({base_url}/api/public): `{ message, error }` with Langfuse's error class names
// (docs/public-api.md "Errors" lists them). Validation issues are listed in Langfuse's (zod's) issue shape reduced to
// path and message.
import type { ValidationIssue } from '../../src/platform/validation/validation-issue.ts';

export const PUBLIC_ERROR_STATUS = {
  InvalidRequestError: 400,
  UnauthorizedError: 401,
  ForbiddenError: 403,
  NotFoundError: 404,
  MethodNotAllowedError: 405,
  RequestTimeoutError: 408,
  ConflictError: 409,
  PayloadTooLargeError: 413,
  UnsupportedMediaTypeError: 415,
  RequestHeaderFieldsTooLargeError: 431,
  InternalServerError: 500,
  ServiceUnavailableError: 503,
} as const;

export type PublicErrorName = keyof typeof PUBLIC_ERROR_STATUS;

/** Langfuse's `error` for a read that ran out of its resources (its ClickHouse limits, here the query time limit). */
export const REQUEST_TIMED_OUT = 'Request timed out';

export interface PublicErrorBody {
  message: string;
  /** The error class name, or the list of issues for `Invalid request data`. */
  error: PublicErrorName | typeof REQUEST_TIMED_OUT | ValidationIssue[];
  details?: Record<string, unknown>;
}

export class PublicApiError extends Error {
  readonly status: number;
  readonly body: PublicErrorBody;

  constructor(
    name: PublicErrorName,
    message: string,
    options: { details?: Record<string, unknown>; issues?: ValidationIssue[]; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.status = PUBLIC_ERROR_STATUS[name];
    this.body = { message, error: options.issues ?? name, ...(options.details ? { details: options.details } : {}) };
  }
}

export const invalidRequestData = (issues: ValidationIssue[]) =>
  new PublicApiError('InvalidRequestError', 'Invalid request data', { issues });
