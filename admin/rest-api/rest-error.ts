// Errors of the versioned REST API (docs/rest-api.md "Errors"): `{ error: { code, message, details } }`,
// the status taken from the code.

export const REST_ERROR_STATUS = {
  invalid_request: 400,
  /** A header Node's HTTP parser cannot read (NUL, bare CR or LF, other control characters). */
  invalid_header: 400,
  authentication_failed: 401,
  permission_denied: 403,
  not_found: 404,
  /** The request was not received in time (Node's headers timeout). */
  request_timeout: 408,
  query_timeout: 422,
  rate_limit_exceeded: 429,
  /** The request headers are past the 16 KB Node accepts. */
  header_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type RestErrorCode = keyof typeof REST_ERROR_STATUS;

export interface RestErrorBody {
  error: { code: RestErrorCode; message: string; details: Record<string, unknown> };
}

export class RestApiError extends Error {
  readonly code: RestErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: RestErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'RestApiError';
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return REST_ERROR_STATUS[this.code];
  }

  body(): RestErrorBody {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

/** A 400 about one body field, worded as the schema failures are. */
export function invalidField(field: string, reason: string): RestApiError {
  return new RestApiError('invalid_request', `Field ${field} ${reason}.`, { field, reason, location: 'body' });
}

export function notFound(resource: 'Trace' | 'Span', id: string): RestApiError {
  return new RestApiError('not_found', `${resource} ${JSON.stringify(id)} not found.`, {
    resource: resource.toLowerCase(),
    id,
  });
}
