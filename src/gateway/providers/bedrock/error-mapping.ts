// Bedrock errors (`{message}` + x-amzn-errortype, or in-stream exception frames) → UpstreamError with an
// OpenAI-shaped envelope whose code is the AWS error name (docs/providers/bedrock.md "Errors").
import { openAIErrorBody } from '../../../platform/errors/gateway-error.ts';
import { isObject } from '../../../platform/validation/json-object.ts';
import { UpstreamError, retryAfterMs } from '../../../plugin-api/errors.ts';

/** HTTP status AWS documents for each ConverseStream exception (the frame itself carries none). */
const STREAM_EXCEPTION_STATUS: Record<string, number> = {
  validationException: 400,
  accessDeniedException: 403,
  resourceNotFoundException: 404,
  modelTimeoutException: 408,
  modelStreamErrorException: 424,
  throttlingException: 429,
  modelNotReadyException: 429,
  serviceQuotaExceededException: 429,
  internalServerException: 500,
  serviceUnavailableException: 503,
};

/** `ValidationException:http://internal.amazon.com/coral/...` → `ValidationException`. */
export function awsErrorName(raw: string | string[] | undefined): string | undefined {
  const value = Array.isArray(raw) ? raw[0] : raw;
  const name = value?.split(':')[0].trim();
  return name ? name : undefined;
}

function messageOf(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (isObject(parsed)) {
      const m = parsed.message ?? parsed.Message;
      if (typeof m === 'string') return m;
    }
  } catch {
    // Not JSON: the caller falls back to the raw text.
  }
  return undefined;
}

function upstreamError(status: number, name: string | undefined, message: string, retryMs?: number): UpstreamError {
  const envelope = openAIErrorBody(status, name ?? 'upstream_error', message) as unknown as Record<string, unknown>;
  return new UpstreamError('http', message, { status, envelope, retryAfterMs: retryMs });
}

/** A non-2xx Bedrock answer; the status is kept. */
export function httpError(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  now: number,
): UpstreamError {
  const name = awsErrorName(headers['x-amzn-errortype']);
  const message = messageOf(text) ?? (text.trim().slice(0, 500) || `Bedrock answered ${status}`);
  return upstreamError(status, name, message, retryAfterMs(headers, now));
}

/** An exception frame inside a ConverseStream (`:message-type` exception or error). */
export function streamException(type: string, payload: string): UpstreamError {
  const status = STREAM_EXCEPTION_STATUS[type] ?? 502;
  const name = type.charAt(0).toUpperCase() + type.slice(1);
  return upstreamError(status, name, messageOf(payload) ?? (payload.trim().slice(0, 500) || type));
}
