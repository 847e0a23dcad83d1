// Reading a provider's 2xx body, shared by the translated families: one JSON object, or a stream relayed through a
// decoder with the connection drained back to the pool when the stream finished and dropped otherwise.
import type { Dispatcher } from 'undici';
import { classifyThrown, isObject } from './openai/http-transport.ts';
import { UpstreamError } from './upstream-error.ts';

type Body = Dispatcher.ResponseData['body'];

/** The body as a JSON object; anything else is `invalid_response`, a broken read is classified as usual. */
export async function jsonObjectBody(res: Dispatcher.ResponseData, signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await res.body.text());
  } catch (err) {
    if (err instanceof SyntaxError) throw new UpstreamError('invalid_response', 'provider answered 2xx with a body that is not JSON', { status: res.statusCode });
    throw classifyThrown(err, signal);
  }
  if (!isObject(parsed)) throw new UpstreamError('invalid_response', 'provider answered 2xx with JSON that is not an object', { status: res.statusCode });
  return parsed;
}

/** Yields what `decode` makes of the body's bytes; errors leave as UpstreamError. */
export async function* relayBody<T>(body: Body, decode: (bytes: AsyncIterable<Uint8Array>) => AsyncIterable<T>, signal: AbortSignal | undefined): AsyncGenerator<T> {
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
