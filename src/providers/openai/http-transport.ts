// Transport shared by every OpenAI-wire provider (OpenAI-compatible and Azure): request, errors, SSE chunks.
import { createParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import type { ChatChunk, JsonObject, Usage } from '../../pipeline/types.ts';
import type { ProviderCall, ProviderResult, ProviderServices } from '../types.ts';
import { UpstreamError, retryAfterMs } from '../upstream-error.ts';

export interface Endpoint {
  origin: string;
  path: string;
  headers: Record<string, string>;
}

const MAX_ERROR_BODY = 64 * 1024;

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
  return new UpstreamError('connect', `cannot reach provider: ${(err as Error).message ?? String(err)}`, { cause: err });
}

/** POSTs a JSON payload; transport failures become UpstreamError, every status is returned. */
export async function send(services: ProviderServices, endpoint: Endpoint, payload: JsonObject, call: ProviderCall) {
  try {
    return await services.dispatcher.request({
      origin: endpoint.origin,
      path: endpoint.path,
      method: 'POST',
      headers: endpoint.headers,
      body: JSON.stringify(payload),
      signal: call.signal,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
    });
  } catch (err) {
    throw classifyThrown(err, call.signal);
  }
}

export async function readBounded(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
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

async function errorFromResponse(res: Dispatcher.ResponseData, now: number): Promise<UpstreamError> {
  const text = await readBounded(res.body, MAX_ERROR_BODY).catch(() => '');
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

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Non-streamed POST; a 2xx body must be a JSON object. */
export async function postJson(
  services: ProviderServices,
  endpoint: Endpoint,
  payload: JsonObject,
  call: ProviderCall,
): Promise<ProviderResult> {
  const res = await send(services, endpoint, payload, call);
  if (res.statusCode < 200 || res.statusCode >= 300) throw await errorFromResponse(res, services.now());
  let text: string;
  try {
    text = await res.body.text();
  } catch (err) {
    throw classifyThrown(err, call.signal);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new UpstreamError('invalid_response', 'provider answered 2xx with a body that is not JSON', { status: res.statusCode });
  }
  if (!isObject(body)) {
    throw new UpstreamError('invalid_response', 'provider answered 2xx with JSON that is not an object', { status: res.statusCode });
  }
  return { body, raw: text, usage: isObject(body.usage) ? (body.usage as unknown as Usage) : undefined };
}

/** Streamed POST: resolves when the provider accepted; yields each `data:` chunk until `[DONE]`. */
export async function postStream(
  services: ProviderServices,
  endpoint: Endpoint,
  payload: JsonObject,
  call: ProviderCall,
): Promise<AsyncIterable<ChatChunk>> {
  const res = await send(services, endpoint, payload, call);
  if (res.statusCode < 200 || res.statusCode >= 300) throw await errorFromResponse(res, services.now());
  const type = String(res.headers['content-type'] ?? '');
  if (!type.includes('text/event-stream')) {
    // Some servers answer a stream request with a JSON error and status 200.
    const text = await readBounded(res.body, MAX_ERROR_BODY).catch(() => '');
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (isObject(parsed) && isObject(parsed.error)) {
      throw new UpstreamError('http', String(parsed.error.message ?? 'provider error'), { status: 502, envelope: parsed });
    }
    throw new UpstreamError('invalid_response', `provider answered a stream request with '${type || 'no content type'}'`, {
      status: res.statusCode,
    });
  }
  return decodeSse(res.body, call.signal);
}

async function* decodeSse(body: Dispatcher.ResponseData['body'], signal: AbortSignal | undefined): AsyncGenerator<ChatChunk> {
  const decoder = new TextDecoder();
  const pending: string[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event.data) });
  let finished = false;
  let sawFinish = false;
  try {
    // destroyOnReturn: false, or leaving the loop at [DONE] would destroy the body before `finally` can drain
    // it, and the keep-alive connection would be closed instead of going back to the pool.
    for await (const buf of body.iterator({ destroyOnReturn: false })) {
      parser.feed(decoder.decode(buf as Buffer, { stream: true }));
      for (let i = 0; i < pending.length; i++) {
        const data = pending[i];
        if (data === '[DONE]') {
          finished = true;
          return;
        }
        let chunk: unknown;
        try {
          chunk = JSON.parse(data);
        } catch {
          throw new UpstreamError('invalid_response', 'provider sent a stream event that is not JSON');
        }
        if (!isObject(chunk)) throw new UpstreamError('invalid_response', 'provider sent a stream event that is not an object');
        if (isObject(chunk.error)) {
          throw new UpstreamError('http', String(chunk.error.message ?? 'provider stream error'), { envelope: chunk });
        }
        if (Array.isArray(chunk.choices) && chunk.choices.some((c) => isObject(c) && c.finish_reason)) sawFinish = true;
        yield chunk as ChatChunk;
      }
      pending.length = 0;
    }
    // A server that closes cleanly after the final chunk but skips [DONE] is tolerated.
    finished = sawFinish;
    if (!finished) throw new UpstreamError('connect', 'provider closed the stream before it finished');
  } catch (err) {
    throw classifyThrown(err, signal);
  } finally {
    // Nothing reads the body any more: an error while draining it, or the abort error of destroying it, is moot.
    body.on('error', () => {});
    // Drain what follows [DONE] so the connection goes back to the pool; otherwise drop it.
    if (finished) body.resume();
    else body.destroy();
  }
}
