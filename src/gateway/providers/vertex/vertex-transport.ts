// HTTP to Vertex: Bearer token from the service account, one token refresh and retry on 401, Google errors mapped,
// JSON bodies and SSE events read. Shared by Gemini and Claude on Vertex.
import { createParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import type { ChatChunk, JsonObject } from '../../../platform/openai/wire-types.ts';
import { isObject } from '../../../platform/validation/json-object.ts';
import { classifyThrown, send as postOnce, smallBodyText } from '../http.ts';
import { payloadBytes } from '../payload-bytes.ts';
import type { ProviderServices } from '../types.ts';
import { UpstreamError } from '../../../plugin-api/errors.ts';
import { jsonOrUndefined, vertexHttpError, vertexStreamError } from './error-mapping.ts';
import type { AccessTokens, ServiceAccount } from './oauth.ts';
import type { ProviderCall } from '../../../plugin-api/services.ts';

export interface VertexTarget {
  origin: string;
  path: string;
  account: ServiceAccount;
  tokenUrl: string;
}

export interface SseEvent {
  event?: string;
  data: string;
}

/** POSTs `payload`; resolves with a 2xx response, else throws the mapped UpstreamError. */
export async function vertexPost(
  services: ProviderServices,
  tokens: AccessTokens,
  target: VertexTarget,
  payload: JsonObject,
  call: ProviderCall,
): Promise<Dispatcher.ResponseData> {
  const body = await payloadBytes(services, payload, call);
  const send = (token: string) =>
    postOnce(
      services,
      {
        origin: target.origin,
        path: target.path,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      },
      body,
      call,
    );
  const token = await tokens.token(target.account, target.tokenUrl);
  let res = await send(token);
  if (res.statusCode === 401) {
    // The token may have been revoked or expired early: fetch a new one and try this call once more.
    await res.body.dump().catch(() => {});
    tokens.invalidate(target.account, target.tokenUrl, token);
    res = await send(await tokens.token(target.account, target.tokenUrl));
  }
  if (res.statusCode < 200 || res.statusCode >= 300) {
    const text = await smallBodyText(res.body);
    throw vertexHttpError(res.statusCode, res.headers, text, services.now());
  }
  return res;
}

/** A non-streamed 2xx body, which must be a JSON object. */
export async function readJsonObject(
  res: Dispatcher.ResponseData,
  call: ProviderCall,
): Promise<{ body: JsonObject; raw: string }> {
  let raw: string;
  try {
    raw = await res.body.text();
  } catch (err) {
    throw classifyThrown(err, call.signal);
  }
  const body = jsonOrUndefined(raw);
  if (!isObject(body))
    throw new UpstreamError('invalid_response', 'provider answered 2xx with a body that is not a JSON object', {
      status: res.statusCode,
    });
  return { body, raw };
}

/** Checks a stream answer is SSE; some errors arrive as JSON with status 200. */
export async function expectEventStream(res: Dispatcher.ResponseData): Promise<void> {
  const type = String(res.headers['content-type'] ?? '');
  if (type.includes('text/event-stream')) return;
  const text = await smallBodyText(res.body);
  throw (
    vertexStreamError(jsonOrUndefined(text)) ??
    new UpstreamError('invalid_response', `provider answered a stream request with '${type || 'no content type'}'`, {
      status: res.statusCode,
    })
  );
}

/**
 * The SSE events of a response body (`\n\n`, `\r\n\r\n` and `\r\r` separators, frames split across reads).
 * Leaving early destroys the body; reading to the end returns the connection to the pool.
 */
export async function* sseEvents(body: Dispatcher.ResponseData['body']): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const pending: SseEvent[] = [];
  const parser = createParser({ onEvent: (e) => pending.push({ event: e.event, data: e.data }) });
  let complete = false;
  try {
    for await (const buf of body) {
      parser.feed(decoder.decode(buf as Buffer, { stream: true }));
      yield* pending.splice(0);
    }
    complete = true;
  } finally {
    if (!complete) {
      body.on('error', () => {});
      body.destroy();
    }
  }
}

/** Turns parsed SSE events into chunks; `end` runs once the body ended and throws when the answer is incomplete. */
export interface EventDecoder {
  push(event: unknown): ChatChunk[];
  end(): ChatChunk[];
}

/** The chunks of an SSE body through `decoder`; every failure becomes an UpstreamError. */
export async function* relayEvents(
  body: Dispatcher.ResponseData['body'],
  decoder: EventDecoder,
  signal: AbortSignal | undefined,
): AsyncGenerator<ChatChunk> {
  try {
    for await (const event of sseEvents(body)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(event.data);
      } catch {
        throw new UpstreamError('invalid_response', 'provider sent a stream event that is not JSON');
      }
      yield* decoder.push(parsed);
    }
    yield* decoder.end();
  } catch (err) {
    throw classifyThrown(err, signal);
  }
}
