// The errors the SDK throws. Every one is an SvcError, so callers can catch the SDK's failures in one place.

export class SvcError extends Error {
  override name = 'SvcError';
}

/** A missing or malformed setting, found at construction; `variable` names the environment variable or option. */
export class SvcConfigError extends SvcError {
  override name = 'SvcConfigError';
  readonly variable: string;

  constructor(variable: string, problem: string) {
    super(`${variable} ${problem}`);
    this.variable = variable;
  }
}

/** The server answered with an error status; `message` is the server's own message when it sent one. */
export class SvcApiError extends SvcError {
  override name = 'SvcApiError';
  readonly status: number;
  /** The server's error name (`NotFoundError`, `UnauthorizedError`, ...), when it sent one. */
  readonly error: string | undefined;
  /** The parsed response body (or its text when it is not JSON). */
  readonly body: unknown;
  readonly method: string;
  readonly path: string;

  constructor(init: {
    status: number;
    message: string;
    error: string | undefined;
    body: unknown;
    method: string;
    path: string;
  }) {
    super(`${init.method} ${init.path}: ${init.status} ${init.message}`);
    this.status = init.status;
    this.error = init.error;
    this.body = init.body;
    this.method = init.method;
    this.path = init.path;
  }
}

/** No answer from the server: it could not be reached, or the connection broke. */
export class SvcConnectionError extends SvcError {
  override name = 'SvcConnectionError';
}

/** No answer within the client's timeout. */
export class SvcTimeoutError extends SvcConnectionError {
  override name = 'SvcTimeoutError';
}
