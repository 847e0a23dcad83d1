// Google's error envelope `{error:{code,message,status}}` (and Anthropic's, from Claude on Vertex) → UpstreamError
// carrying the status and an OpenAI-shaped envelope, so the client sees the gateway's error shape
// (docs/api.md, Errors).
import { openAIErrorBody } from '../../../platform/errors/gateway-error.ts';
import { UpstreamError, retryAfterMs } from '../../../plugin-api/errors.ts';
import { isObject } from '../../../platform/validation/json-object.ts';

/** Google's canonical status names as HTTP statuses, for in-stream errors that carry no HTTP status of their own. */
const STATUS_OF: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ABORTED: 409,
  ALREADY_EXISTS: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  UNKNOWN: 500,
  DATA_LOSS: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
  overloaded_error: 529,
  rate_limit_error: 429,
  api_error: 500,
  invalid_request_error: 400,
};

/** `text` parsed, or undefined when it is not JSON. */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

interface Parsed {
  message: string;
  /** Google's `status` (RESOURCE_EXHAUSTED) or Anthropic's `error.type` (overloaded_error). */
  reason?: string;
  code?: number;
}

function parse(body: unknown): Parsed | undefined {
  // Vertex sometimes wraps the envelope in a one-element array.
  const envelope = Array.isArray(body) ? body[0] : body;
  if (!isObject(envelope) || !isObject(envelope.error)) return undefined;
  const e = envelope.error;
  const reason = typeof e.status === 'string' ? e.status : typeof e.type === 'string' ? e.type : undefined;
  return {
    message: typeof e.message === 'string' ? e.message : 'provider error',
    reason,
    code: typeof e.code === 'number' ? e.code : undefined,
  };
}

function fromParsed(parsed: Parsed, status: number, retryAfter?: number): UpstreamError {
  const code = parsed.reason?.toLowerCase() ?? 'upstream_error';
  const envelope = openAIErrorBody(status, code, parsed.message) as unknown as Record<string, unknown>;
  return new UpstreamError('http', parsed.message, { status, envelope, retryAfterMs: retryAfter });
}

/** A non-2xx answer: its status kept, Google's message and status name in the OpenAI envelope. */
export function vertexHttpError(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  now: number,
): UpstreamError {
  const parsed = parse(jsonOrUndefined(text)) ?? {
    message: text.trim().slice(0, 500) || `provider answered ${status}`,
  };
  return fromParsed(parsed, status, retryAfterMs(headers, now));
}

/** An error object inside a 200 stream, or undefined when the event is not one. */
export function vertexStreamError(event: unknown): UpstreamError | undefined {
  const parsed = parse(event);
  if (!parsed) return undefined;
  const status = parsed.code ?? (parsed.reason ? STATUS_OF[parsed.reason] : undefined) ?? 502;
  return fromParsed(parsed, status);
}
