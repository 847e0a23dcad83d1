// The errors plugins throw and catch: GatewayError (a coded refusal the client sees in the error envelope), what the
// services throw when their store cannot be reached, and UpstreamError (what went wrong with one provider attempt; the
// router turns it into an outcome and, at the end, a reply).
import { GatewayError } from '../platform/errors/gateway-error.ts';
import type { RequestContext } from './contract.ts';

export { GatewayError };
export type { GatewayErrorCode } from '../platform/errors/codes.ts';
export { CountersUnavailableError } from '../platform/store/counters/counters.ts';
export { StoreUnavailableError } from '../platform/store/store-unreachable.ts';

export type UpstreamFailure =
  /** The provider answered with a non-2xx status. */
  | 'http'
  /** No connection, or the connection broke before a complete answer. */
  | 'connect'
  | 'timeout'
  /** 2xx whose body is not a JSON object (or a stream that never produced a chunk). */
  | 'invalid_response';

export class UpstreamError extends Error {
  readonly kind: UpstreamFailure;
  readonly status?: number;
  /** The provider's own error envelope (`{ error: {...} }`), when it sent one. */
  readonly envelope?: Record<string, unknown>;
  /** Delay the provider asked for (`retry-after` / `retry-after-ms`). */
  readonly retryAfterMs?: number;

  constructor(
    kind: UpstreamFailure,
    message: string,
    options: { status?: number; envelope?: Record<string, unknown>; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UpstreamError';
    this.kind = kind;
    this.status = options.status;
    this.envelope = options.envelope;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Parses `retry-after-ms`, then `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>, now: number): number | undefined {
  const ms = Number(first(headers['retry-after-ms']));
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = first(headers['retry-after']);
  if (raw === undefined) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The code of the GatewayError that ended a request, when one did: a refusal of ours, not an upstream failure. */
export function refusalCode(ctx: RequestContext): string | undefined {
  return ctx.error instanceof GatewayError ? ctx.error.code : undefined;
}
