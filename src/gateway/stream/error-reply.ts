// Turns whatever ended a request into the status and body the client sees (the error codes in docs/api.md).
import { randomUUID } from 'node:crypto';
import { GatewayError, openAIErrorBody } from '../../platform/errors/gateway-error.ts';
import { UpstreamError } from '../../plugin-api/errors.ts';
import type { Logger } from '../../platform/telemetry/logger.ts';

export interface ErrorReply {
  status: number;
  /** The gateway's error code (docs/api.md, Errors), the provider's own code for pass-through errors, or null for
   * unexpected failures. */
  code: string | null;
  body: unknown;
  headers?: Record<string, string>;
}

const UPSTREAM_CODES = {
  connect: 'upstream_unreachable',
  timeout: 'upstream_timeout',
  invalid_response: 'upstream_invalid_response',
} as const;

export function errorReply(err: unknown, log: Logger): ErrorReply {
  if (err instanceof GatewayError) {
    const headers: Record<string, string> = { ...err.headers };
    if (err.retryAfter !== undefined) headers['retry-after'] = String(err.retryAfter);
    return { status: err.status, code: err.code, body: openAIErrorBody(err.status, err.code, err.message), headers };
  }
  if (err instanceof UpstreamError) {
    if (err.kind === 'http') {
      const status = err.status ?? 502;
      const providerCode = (err.envelope?.error as { code?: unknown } | undefined)?.code;
      const code = typeof providerCode === 'string' ? providerCode : 'upstream_error';
      // The provider's own envelope passes through when it sent one (docs/api.md, Errors), with its retry hint.
      const headers: Record<string, string> = {};
      if (err.retryAfterMs !== undefined) {
        headers['retry-after'] = String(Math.ceil(err.retryAfterMs / 1000));
        headers['retry-after-ms'] = String(Math.round(err.retryAfterMs));
      }
      return { status, code, body: err.envelope ?? openAIErrorBody(status, 'upstream_error', err.message), headers };
    }
    const mapped = new GatewayError(UPSTREAM_CODES[err.kind], err.message, { cause: err });
    return errorReply(mapped, log);
  }
  const errorId = randomUUID();
  log.error('unexpected gateway error', { errorId, error: err instanceof Error ? err.stack : String(err) });
  return { status: 500, code: null, body: openAIErrorBody(500, null, `Internal gateway error (error id ${errorId}).`) };
}
