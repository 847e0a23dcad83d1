// Anthropic error envelopes (`{type:'error', error:{type,message}}`) → UpstreamError carrying an OpenAI-shaped
// envelope, so clients see the gateway's envelope (docs/api.md, Errors) with the provider's status and message.
import { errorTypeForStatus } from '../../../platform/errors/codes.ts';
import { UpstreamError } from '../../../plugin-api/errors.ts';

/** Status Anthropic uses for each error type; an in-stream error has no HTTP status of its own. */
const STATUS_BY_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

export interface AnthropicErrorBody {
  type: string;
  message: string;
}

/** The `error` object of an Anthropic envelope, or undefined when `value` is not one. */
export function anthropicErrorOf(value: unknown): AnthropicErrorBody | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const error = (value as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, message } = error as { type?: unknown; message?: unknown };
  if (typeof type !== 'string' && typeof message !== 'string') return undefined;
  return {
    type: typeof type === 'string' ? type : 'api_error',
    message: typeof message === 'string' ? message : String(type),
  };
}

export function openAIEnvelopeOf(status: number, error: AnthropicErrorBody): Record<string, unknown> {
  return { error: { message: error.message, type: errorTypeForStatus(status), param: null, code: error.type } };
}

/** A non-2xx answer: status kept, message from the envelope when there is one, else the (trimmed) body text. */
export function anthropicHttpError(status: number, text: string, retryAfterMs?: number): UpstreamError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const error = anthropicErrorOf(parsed);
  const message = error?.message ?? (text.trim().slice(0, 500) || `provider answered ${status}`);
  return new UpstreamError('http', message, {
    status,
    ...(error ? { envelope: openAIEnvelopeOf(status, error) } : {}),
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

/** An `error` event inside a 200 stream (e.g. overloaded_error): the status its type would have had unary. */
export function anthropicStreamError(data: unknown): UpstreamError {
  const error = anthropicErrorOf(data) ?? { type: 'api_error', message: 'provider stream error' };
  const status = STATUS_BY_TYPE[error.type] ?? 500;
  return new UpstreamError('http', `${error.type}: ${error.message}`, {
    status,
    envelope: openAIEnvelopeOf(status, error),
  });
}
