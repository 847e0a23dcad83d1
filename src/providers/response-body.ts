// Reading a provider's body, shared by every family: failures classified as UpstreamError, bounded reads of error
// bodies, one JSON object, or a stream relayed through a decoder with the connection drained back to the pool when
// the stream finished and dropped otherwise.
import type { Dispatcher } from 'undici';
import { UpstreamError } from './upstream-error.ts';

type Body = Dispatcher.ResponseData['body'];

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

export async function readBounded(body: Body, limit: number): Promise<string> {
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

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body as a JSON object; anything else is `invalid_response`, a broken read is classified as usual. */
export async function jsonObjectBody(
  res: Dispatcher.ResponseData,
  signal: AbortSignal | undefined,
): Promise<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await res.body.text());
  } catch (err) {
    if (err instanceof SyntaxError)
      throw new UpstreamError('invalid_response', 'provider answered 2xx with a body that is not JSON', {
        status: res.statusCode,
      });
    throw classifyThrown(err, signal);
  }
  if (!isObject(parsed))
    throw new UpstreamError('invalid_response', 'provider answered 2xx with JSON that is not an object', {
      status: res.statusCode,
    });
  return parsed;
}

/** Yields what `decode` makes of the body's bytes; errors leave as UpstreamError. */
export async function* relayBody<T>(
  body: Body,
  decode: (bytes: AsyncIterable<Uint8Array>) => AsyncIterable<T>,
  signal: AbortSignal | undefined,
): AsyncGenerator<T> {
  let finished = false;
  try {
    // destroyOnReturn: false, so that `finally` decides between draining (keep-alive) and destroying.
    yield* decode(body.iterator({ destroyOnReturn: false }) as AsyncIterable<Uint8Array>);
    finished = true;
  } catch (err) {
    throw classifyThrown(err, signal);
  } finally {
    // Nothing reads the body any more: an error while draining it, or the abort error of destroying it, is moot.
    body.on('error', () => {});
    if (finished) body.resume();
    else body.destroy();
  }
}
