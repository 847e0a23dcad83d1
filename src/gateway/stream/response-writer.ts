// Writes a GatewayResponse to the socket: JSON at once, streams as OpenAI SSE with backpressure.
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../../platform/errors/gateway-error.ts';
import type { JsonResponse, PluginHooks, RequestContext, StreamResponse } from '../../plugin-api/contract.ts';
import type { ChatChunk } from '../../platform/openai/wire-types.ts';
import { formatUsd } from '../../platform/pricing/cost.ts';
import { wireTextOf } from '../providers/openai/wire-text.ts';
import { errorReply } from './error-reply.ts';
import { StreamAggregate } from './stream-aggregate.ts';

const DONE = 'data: [DONE]\n\n';

/** Non-ASCII escaped so provider messages are always valid header text. */
function headerJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Milliseconds to the µs, as x-svc-overhead-ms carries them. */
const overheadHeader = (ms: number): string => ms.toFixed(3);

/**
 * The x-svc-* headers every chat/embeddings response carries, as far as they are known (docs/api.md, Response
 * headers). Made last before the response head is written: x-svc-overhead-ms is the gateway's time up to here (also
 * kept on `ctx`).
 */
export function gatewayHeaders(ctx: RequestContext, served: boolean): Record<string, string> {
  const headers: Record<string, string> = { 'x-svc-request-id': ctx.id, ...ctx.responseHeaders };
  const group = ctx.servedGroup ?? ctx.group?.name;
  if (group !== undefined && ctx.route !== 'models') headers['x-svc-model-group'] = group;
  if (ctx.deployment !== undefined) headers['x-svc-deployment'] = ctx.deployment;
  if (served && ctx.route !== 'models') {
    headers['x-svc-cost'] = formatUsd(ctx.cost ?? 0);
    headers['x-svc-cost-estimated'] = ctx.costEstimated ? 'true' : 'false';
  }
  if (ctx.attempts.length > 0)
    headers['x-svc-attempts'] = headerJson(ctx.attempts.map(({ startedAt: _, ...record }) => record));
  ctx.overheadMs = performance.now() - ctx.overheadFrom - ctx.providerMs;
  headers['x-svc-overhead-ms'] = overheadHeader(ctx.overheadMs);
  return headers;
}

export function writeJson(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: unknown,
  raw?: string,
): void {
  const text = raw ?? JSON.stringify(body);
  headers['content-type'] = 'application/json';
  headers['content-length'] = String(Buffer.byteLength(text));
  res.writeHead(status, headers);
  res.end(text);
}

export function writeJsonResponse(ctx: RequestContext, res: ServerResponse, response: JsonResponse): void {
  const served = response.status >= 200 && response.status < 300;
  ctx.status = response.status;
  // Serialised before the headers are made, so the overhead includes it.
  const text = response.raw ?? JSON.stringify(response.body);
  writeJson(res, response.status, { ...gatewayHeaders(ctx, served), ...response.headers }, undefined, text);
}

function waitForDrain(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** In-band error event (upstream_stream_error in docs/api.md, Streaming), then the stream's end. */
function streamErrorEvent(err: unknown, ctx: RequestContext): string {
  if (err instanceof GatewayError) {
    return `data: ${JSON.stringify({ error: { message: err.message, type: 'server_error', param: null, code: err.code } })}\n\n`;
  }
  const reason = err instanceof Error ? err.message : String(err);
  ctx.log.warn('upstream stream interrupted', { requestId: ctx.id, deployment: ctx.deployment, reason });
  return `data: ${JSON.stringify({ error: { message: `stream interrupted: ${reason}`, type: 'server_error', param: null, code: 'upstream_stream_error' } })}\n\n`;
}

/**
 * A chunk through the event hooks, in order: what onEvent hooks make of it (`null`: dropped), observeEvent hooks
 * reading it as it is by then.
 */
function throughHooks(
  ctx: RequestContext,
  chunk: ChatChunk,
  hooks: readonly { hooks: PluginHooks }[],
): ChatChunk | null {
  let current = chunk;
  for (const { hooks: h } of hooks) {
    if (h.observeEvent) {
      h.observeEvent(ctx, current);
      continue;
    }
    const changed = h.onEvent!(ctx, current);
    if (changed === null) return null;
    if (changed !== undefined) current = changed;
  }
  return current;
}

/** How a stream is written: the plugins' event hooks, in the order each chunk meets them, and what is kept of it. */
export interface StreamWriting {
  hooks: readonly { hooks: PluginHooks }[];
  /** No hook may have changed a chunk: a chunk the provider's transport kept the text of goes out as that text. */
  providerText: boolean;
  /** The most answer text `ctx.streamed` keeps (the largest `streamedTextChars` of the plugins taking part). */
  textChars: number;
}

/**
 * Streams chunks through the plugins' event hooks to the client, each first added to `ctx.streamed`. A chunk goes out
 * as the provider's own text when `providerText` allows it, otherwise serialised. After a client disconnect the events
 * are still consumed, so usage is settled; nothing more is written.
 */
export async function writeStream(
  ctx: RequestContext,
  res: ServerResponse,
  response: StreamResponse,
  { hooks: eventHooks, providerText, textChars }: StreamWriting,
): Promise<void> {
  ctx.status = response.status;
  const headers = {
    ...gatewayHeaders(ctx, true),
    ...response.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  };
  res.writeHead(response.status, headers);
  // Headers go out now, with the provider's first event (docs/api.md, Streaming).
  res.flushHeaders();
  let chunkWorkMs = 0;
  const streamed = new StreamAggregate(textChars);
  ctx.streamed = streamed;
  try {
    for await (const original of response.events) {
      // The gateway's time on a chunk, from its arrival to its write; waits for the provider or the client are not.
      const arrived = performance.now();
      streamed.add(original);
      const chunk = eventHooks.length === 0 ? original : throughHooks(ctx, original, eventHooks);
      let flushed = true;
      if (chunk !== null && !ctx.clientAborted) {
        const text = (providerText ? wireTextOf(chunk) : undefined) ?? JSON.stringify(chunk);
        flushed = res.write(`data: ${text}\n\n`);
      }
      chunkWorkMs += performance.now() - arrived;
      if (!flushed) await waitForDrain(res);
    }
  } catch (err) {
    ctx.error = err;
    if (!ctx.clientAborted) res.write(streamErrorEvent(err, ctx));
  }
  if (!ctx.clientAborted) res.end(DONE);
  ctx.overheadMs! += chunkWorkMs;
}

/** A refusal or failure before anything was committed. */
export function writeError(ctx: RequestContext, res: ServerResponse, err: unknown): string | null {
  const reply = errorReply(err, ctx.log);
  ctx.status = reply.status;
  writeJson(res, reply.status, { ...gatewayHeaders(ctx, false), ...reply.headers }, reply.body);
  return reply.code;
}

/** A refusal before the pipeline, which has no request context; `overheadMs` is the gateway's time on the request. */
export function writeRefusal(
  res: ServerResponse,
  err: unknown,
  requestId: string,
  log: RequestContext['log'],
  overheadMs: number,
): string | null {
  const reply = errorReply(err, log);
  const headers = { 'x-svc-request-id': requestId, 'x-svc-overhead-ms': overheadHeader(overheadMs), ...reply.headers };
  writeJson(res, reply.status, headers, reply.body);
  return reply.code;
}
