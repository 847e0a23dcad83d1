// Transport of every OpenAI-wire provider (OpenAI-compatible and Azure): OpenAI error envelopes and SSE chunks.
import { createParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import type { ChatChunk, JsonObject, Usage } from '../../openai/wire-types.ts';
import { isObject } from '../../validation/json-object.ts';
import { jsonObjectBody, relayBody, send, smallBodyText, type Endpoint } from '../http.ts';
import type { ProviderCall, ProviderResult, ProviderServices } from '../types.ts';
import { UpstreamError, retryAfterMs } from '../upstream-error.ts';

async function errorFromResponse(res: Dispatcher.ResponseData, now: number): Promise<UpstreamError> {
  const text = await smallBodyText(res.body);
  let envelope: Record<string, unknown> | undefined;
  let message = text.trim().slice(0, 500) || `provider answered ${res.statusCode}`;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (isObject(parsed) && isObject(parsed.error)) {
      envelope = parsed;
      if (typeof parsed.error.message === 'string') message = parsed.error.message;
    } else if (isObject(parsed) && typeof parsed.message === 'string') {
      message = parsed.message;
    }
  } catch {
    // Not JSON: the raw text (trimmed) is the message.
  }
  return new UpstreamError('http', message, {
    status: res.statusCode,
    envelope,
    retryAfterMs: retryAfterMs(res.headers, now),
  });
}

/** Non-streamed POST; a 2xx body must be a JSON object. */
export async function postJson(
  services: ProviderServices,
  endpoint: Endpoint,
  payload: JsonObject,
  call: ProviderCall,
): Promise<ProviderResult> {
  const res = await send(services, endpoint, JSON.stringify(payload), call);
  if (res.statusCode < 200 || res.statusCode >= 300) throw await errorFromResponse(res, services.now());
  const { body, raw } = await jsonObjectBody(res, call.signal);
  return { body, raw, usage: isObject(body.usage) ? (body.usage as unknown as Usage) : undefined };
}

/** Streamed POST: resolves when the provider accepted; yields each `data:` chunk until `[DONE]`. */
export async function postStream(
  services: ProviderServices,
  endpoint: Endpoint,
  payload: JsonObject,
  call: ProviderCall,
): Promise<AsyncIterable<ChatChunk>> {
  const res = await send(services, endpoint, JSON.stringify(payload), call);
  if (res.statusCode < 200 || res.statusCode >= 300) throw await errorFromResponse(res, services.now());
  const type = String(res.headers['content-type'] ?? '');
  if (!type.includes('text/event-stream')) {
    // Some servers answer a stream request with a JSON error and status 200.
    const text = await smallBodyText(res.body);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (isObject(parsed) && isObject(parsed.error)) {
      throw new UpstreamError('http', String(parsed.error.message ?? 'provider error'), {
        status: 502,
        envelope: parsed,
      });
    }
    throw new UpstreamError(
      'invalid_response',
      `provider answered a stream request with '${type || 'no content type'}'`,
      {
        status: res.statusCode,
      },
    );
  }
  return relayBody(res.body, openAISseChunks, call.signal);
}

/** The `data:` chunks of an OpenAI SSE body, until `[DONE]`; a server that closes cleanly after a finish reason
 * without `[DONE]` is tolerated, any other early end is an interruption. */
async function* openAISseChunks(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<ChatChunk> {
  const decoder = new TextDecoder();
  const pending: string[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event.data) });
  let sawFinish = false;
  for await (const buf of bytes) {
    parser.feed(decoder.decode(buf, { stream: true }));
    for (let i = 0; i < pending.length; i++) {
      const data = pending[i];
      if (data === '[DONE]') return;
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        throw new UpstreamError('invalid_response', 'provider sent a stream event that is not JSON');
      }
      if (!isObject(chunk))
        throw new UpstreamError('invalid_response', 'provider sent a stream event that is not an object');
      if (isObject(chunk.error)) {
        throw new UpstreamError('http', String(chunk.error.message ?? 'provider stream error'), { envelope: chunk });
      }
      if (Array.isArray(chunk.choices) && chunk.choices.some((c) => isObject(c) && c.finish_reason)) sawFinish = true;
      yield chunk as ChatChunk;
    }
    pending.length = 0;
  }
  if (!sawFinish) throw new UpstreamError('connect', 'provider closed the stream before it finished');
}
