import { GATEWAY_ERROR_STATUS, errorTypeForStatus, type GatewayErrorCode } from './codes.ts';

export interface GatewayErrorOptions {
  cause?: unknown;
  /** Seconds for the `retry-after` header. */
  retryAfter?: number;
  details?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** Shared by every copy of this module in the process (a custom plugin may carry its own copy of the package). */
const BRAND = Symbol.for('svc.gateway-error');

/** The one way a plugin or the listener ends a request with one of the gateway's error codes (codes.ts). */
export class GatewayError extends Error {
  /**
   * `instanceof` checks the brand rather than the prototype chain, so an error made by another copy of this class is
   * still recognised (undici's pattern). Subclasses keep the ordinary check.
   */
  static override [Symbol.hasInstance](value: unknown): value is GatewayError {
    if (this !== GatewayError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  get [BRAND](): true {
    return true;
  }

  readonly code: GatewayErrorCode;
  readonly status: number;
  readonly retryAfter?: number;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: GatewayErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.status = GATEWAY_ERROR_STATUS[code];
    this.retryAfter = options.retryAfter;
    this.details = options.details;
    this.headers = options.headers;
  }
}

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: null; code: string | null };
}

export function openAIErrorBody(status: number, code: string | null, message: string): OpenAIErrorBody {
  return { error: { message, type: errorTypeForStatus(status), param: null, code } };
}
