// Transport of every OpenAI-wire provider (OpenAI-compatible and Azure): OpenAI error envelopes and SSE chunks, each
// chunk with the provider's text of it kept for pass-through (wire-text.ts).
import { createParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import type { ChatChunk, JsonObject, Usage } from '../../../platform/openai/wire-types.ts';
import { isObject } from '../../../platform/validation/json-object.ts';
import {
  bodyBytes,
  classifyThrown,
  exchangeText,
  jsonObjectOf,
  releaseBody,
  send,
  smallBodyText,
  type Endpoint,
  type TextAnswer,
} from '../http.ts';
import { payloadBytes } from '../payload-bytes.ts';
import type { ProviderServices } from '../types.ts';
import { UpstreamError, retryAfterMs } from '../../../plugin-api/errors.ts';
import { clientAsksForUsage } from './payload.ts';
import { keepWireText } from './wire-text.ts';
import type { ProviderCall, ProviderResult } from '../../../plugin-api/services.ts';

async function errorFromResponse(res: Dispatcher.ResponseData, now: number): Promise<UpstreamError> {
  return errorFromText(res.statusCode, res.headers, await smallBodyText(res.body), now);
}

function errorFromText(status: number, headers: TextAnswer['headers'], text: string, now: number): UpstreamError {
  let envelope: Record<string, unknown> | undefined;
  let message = text.trim().slice(0, 500) || `provider answered ${status}`;
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
  return new UpstreamError('http', message, { status, envelope, retryAfterMs: retryAfterMs(headers, now) });
}

/** Non-streamed POST; a 2xx body must be a JSON object. */
export async function postJson(
  services: ProviderServices,
  endpoint: Endpoint,
  payload: JsonObject,
  call: ProviderCall,
): Promise<ProviderResult> {
  const answer = await exchangeText(services, endpoint, await payloadBytes(services, payload, call), call.timeoutMs);
  if (answer.statusCode < 200 || answer.statusCode >= 300)
    throw errorFromText(answer.statusCode, answer.headers, answer.text, services.now());
  const body = jsonObjectOf(answer.text, answer.statusCode);
  // Whatever the provider put there: the router checks it (src/plugin-api/usage-check.ts).
  return { body, raw: answer.text, usage: body.usage == null ? undefined : (body.usage as Usage) };
}

/**
 * Streamed POST: resolves when the provider accepted; yields each `data:` chunk until `[DONE]`. The payload always
 * asks for the usage chunk (payload.ts), which makes the provider add `"usage":null` to every chunk; when the client
 * did not ask, that member is taken off again here, where the chunk's text is still at hand.
 */
export async function postStream(
  services: ProviderServices,
  endpoint: Endpoint,
  payload: JsonObject,
  call: ProviderCall,
): Promise<AsyncIterable<ChatChunk>> {
  const res = await send(services, endpoint, await payloadBytes(services, payload, call), call);
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
  return openAISseChunks(res.body, !clientAsksForUsage(call.body), call.signal);
}

/**
 * The `data:` chunks of an OpenAI SSE body, until `[DONE]`; a server that closes cleanly after a finish reason
 * without `[DONE]` is tolerated, any other early end is an interruption. One generator from the socket to the
 * router's relay: it reads the body itself, errors leave as UpstreamError.
 */
async function* openAISseChunks(
  body: Dispatcher.ResponseData['body'],
  dropNullUsage: boolean,
  signal: AbortSignal | undefined,
): AsyncGenerator<ChatChunk> {
  const decoder = new TextDecoder();
  const pending: string[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event.data) });
  let sawFinish = false;
  let finished = false;
  try {
    for await (const buf of bodyBytes(body)) {
      parser.feed(decoder.decode(buf, { stream: true }));
      for (let i = 0; i < pending.length; i++) {
        if (pending[i] === '[DONE]') {
          finished = true;
          return;
        }
        const chunk = chunkOf(pending[i], dropNullUsage);
        if (!sawFinish && Array.isArray(chunk.choices))
          sawFinish = chunk.choices.some((c) => isObject(c) && c.finish_reason);
        yield chunk;
      }
      pending.length = 0;
    }
    if (!sawFinish) throw new UpstreamError('connect', 'provider closed the stream before it finished');
    finished = true;
  } catch (err) {
    throw classifyThrown(err, signal);
  } finally {
    releaseBody(body, finished);
  }
}

/** One event's chunk, with its JSON text kept for pass-through (wire-text.ts). */
function chunkOf(data: string, dropNullUsage: boolean): ChatChunk {
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
  // Data sent over several lines cannot go out again as one `data:` line.
  let text = data.includes('\n') ? undefined : data;
  if (dropNullUsage && chunk.usage === null) {
    delete chunk.usage;
    text = text === undefined ? undefined : withoutNullUsage(text);
  }
  if (text !== undefined) keepWireText(chunk, text);
  return chunk as ChatChunk;
}

const NULL_USAGE_LAST = ',"usage":null}';

/**
 * The chunk's text without `"usage":null`, when that is its last member as OpenAI writes it; otherwise undefined, and
 * the chunk is serialised again. In valid JSON that tail is the top-level object's last member (a `"` after a comma
 * opens a string); being the text's only `"usage":`, no duplicate member of that name is left behind.
 */
function withoutNullUsage(text: string): string | undefined {
  const at = text.length - NULL_USAGE_LAST.length;
  if (!text.endsWith(NULL_USAGE_LAST) || text.indexOf('"usage":') !== at + 1) return undefined;
  return text.slice(0, at) + '}';
}
