// HTTP to a provider, shared by every family: the POST itself, failures classified as UpstreamError, bounded reads of
// small bodies (errors, tokens), one JSON object, or a stream relayed through a decoder with the connection drained
// back to the pool when the stream finished and dropped otherwise.
import type { Dispatcher } from 'undici';
import { isObject } from '../../platform/validation/json-object.ts';
import type { ProviderServices } from './types.ts';
import { UpstreamError } from '../../plugin-api/errors.ts';
import type { ProviderCall } from '../../plugin-api/services.ts';

type Body = Dispatcher.ResponseData['body'];

export interface Endpoint {
  origin: string;
  path: string;
  headers: Record<string, string>;
}

/** Error bodies and token answers are read up to this size; what follows is not needed. */
const SMALL_BODY_BYTES = 64 * 1024;

export function classifyThrown(err: unknown, signal: AbortSignal | undefined): UpstreamError {
  if (err instanceof UpstreamError) return err;
  const code = (err as { code?: string }).code;
  if (signal?.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    const reason = signal?.reason as Error | undefined;
    if (signal?.aborted && reason?.name !== 'TimeoutError') {
      return new UpstreamError('connect', `request aborted: ${reason?.message ?? 'aborted'}`, { cause: err });
    }
    return new UpstreamError('timeout', 'provider did not answer in time', { cause: err });
  }
  return new UpstreamError('connect', `cannot reach provider: ${(err as Error).message ?? String(err)}`, {
    cause: err,
  });
}

/** POSTs `body`; transport failures become UpstreamError, every status is returned. */
export async function send(
  services: ProviderServices,
  endpoint: Endpoint,
  body: string | Uint8Array,
  call: ProviderCall,
): Promise<Dispatcher.ResponseData> {
  try {
    return await services.dispatcher.request({
      origin: endpoint.origin,
      path: endpoint.path,
      method: 'POST',
      headers: endpoint.headers,
      body,
      signal: call.signal,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
    });
  } catch (err) {
    throw classifyThrown(err, call.signal);
  }
}

async function readBounded(body: Body, limit: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    parts.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(parts).toString('utf8').slice(0, limit);
}

/** The text of a small body (an error, a token answer), at most 64 KiB; a body that breaks off reads as empty. */
export const smallBodyText = (body: Body): Promise<string> => readBounded(body, SMALL_BODY_BYTES).catch(() => '');

/** A 2xx body's text as a JSON object; anything else is `invalid_response`. */
export function jsonObjectOf(raw: string, status: number): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new UpstreamError('invalid_response', 'provider answered 2xx with a body that is not JSON', { status });
  }
  if (!isObject(parsed))
    throw new UpstreamError('invalid_response', 'provider answered 2xx with JSON that is not an object', { status });
  return parsed;
}

/** The body as a JSON object and the text it was parsed from; anything else is `invalid_response`, a broken read is
 * classified as usual. */
export async function jsonObjectBody(
  res: Dispatcher.ResponseData,
  signal: AbortSignal | undefined,
): Promise<{ body: Record<string, unknown>; raw: string }> {
  let raw: string;
  try {
    raw = await res.body.text();
  } catch (err) {
    throw classifyThrown(err, signal);
  }
  return { body: jsonObjectOf(raw, res.statusCode), raw };
}

/** A whole answer held in memory: a non-2xx body only up to SMALL_BODY_BYTES, as `smallBodyText` reads it. */
export interface TextAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * POSTs `body` and reads the whole answer, for calls that need no abort signal (non-streamed calls are bounded by
 * the header and body timeouts alone). Through undici's dispatch interface rather than `request`: no stream object
 * and no consumer per answer, which under load was a tenth of what each proxied request allocated.
 */
export function exchangeText(
  services: ProviderServices,
  endpoint: Endpoint,
  body: string | Uint8Array,
  timeoutMs: number,
): Promise<TextAnswer> {
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    let headers: TextAnswer['headers'] = {};
    const chunks: Buffer[] = [];
    let kept = 0;
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart() {},
      onResponseStart(_controller, status, responseHeaders) {
        statusCode = status;
        headers = responseHeaders;
      },
      onResponseData(_controller, chunk) {
        const ok = statusCode >= 200 && statusCode < 300;
        if (!ok && kept >= SMALL_BODY_BYTES) return;
        chunks.push(chunk);
        kept += chunk.length;
      },
      onResponseEnd() {
        const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
        const ok = statusCode >= 200 && statusCode < 300;
        const text = bytes.toString('utf8', 0, ok ? bytes.length : Math.min(bytes.length, SMALL_BODY_BYTES));
        resolve({ statusCode, headers, text });
      },
      onResponseError(_controller, err) {
        reject(classifyThrown(err, undefined));
      },
    };
    try {
      services.dispatcher.dispatch(
        {
          origin: endpoint.origin,
          path: endpoint.path,
          method: 'POST',
          headers: endpoint.headers,
          body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        },
        handler,
      );
    } catch (err) {
      reject(classifyThrown(err, undefined));
    }
  });
}

/** A streamed body's bytes as they arrive. Not destroyed when the reader stops: `releaseBody` decides that. */
export const bodyBytes = (body: Body): AsyncIterable<Uint8Array> =>
  body.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>;

/** After a stream was read: a finished one is drained so its connection goes back to the pool, any other dropped. */
export function releaseBody(body: Body, finished: boolean): void {
  // Nothing reads the body any more: an error while draining it, or the abort error of destroying it, is moot.
  body.on('error', () => {});
  if (finished) body.resume();
  else body.destroy();
}

/** Yields what `decode` makes of the body's bytes; errors leave as UpstreamError. */
export async function* relayBody<T>(
  body: Body,
  decode: (bytes: AsyncIterable<Uint8Array>) => AsyncIterable<T>,
  signal: AbortSignal | undefined,
): AsyncGenerator<T> {
  let finished = false;
  try {
    yield* decode(bodyBytes(body));
    finished = true;
  } catch (err) {
    throw classifyThrown(err, signal);
  } finally {
    releaseBody(body, finished);
  }
}
