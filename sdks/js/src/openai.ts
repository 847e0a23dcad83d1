// svc-sdk/openai: an `openai` client pointed at the svc gateway that links each call to the span making it. Every
// request carries the active span's W3C `traceparent` (the gateway records it as the parent of its trace) and the
// user and session ids from `withTraceAttributes` as `svc-user-id` / `svc-session-id`.
import { context, type Context } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import OpenAI, { type ClientOptions } from 'openai';
import { checkedBaseUrl, setting } from './config.ts';
import { SvcConfigError } from './errors.ts';
import { propagatedAttributes } from './trace-context.ts';

export interface GatewayOpenAIOptions extends Omit<ClientOptions, 'baseURL' | 'apiKey'> {
  /** The gateway's base URL, e.g. `http://localhost:8080` (a trailing `/v1` is accepted); default: `SVC_GATEWAY_URL`. */
  baseUrl?: string;
  /** A gateway key; default: `SVC_GATEWAY_KEY`. */
  apiKey?: string;
}

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const propagator = new W3CTraceContextPropagator();

/** The linking headers for a request made in `ctx`: `traceparent` when a span is active, and the propagated ids. */
export function gatewayHeaders(ctx: Context = context.active()): Record<string, string> {
  const headers: Record<string, string> = {};
  propagator.inject(ctx, headers, { set: (carrier, key, value) => (carrier[key] = value) });
  const { userId, sessionId } = propagatedAttributes(ctx);
  if (userId !== undefined) headers['svc-user-id'] = userId;
  if (sessionId !== undefined) headers['svc-session-id'] = sessionId;
  return headers;
}

/** `fetchImpl` with the linking headers of the context active at each call added to the request. */
export function linkedFetch(fetchImpl: Fetch = globalThis.fetch): Fetch {
  return (input, init) => {
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    new Headers(init?.headers).forEach((value, key) => headers.set(key, value));
    for (const [key, value] of Object.entries(gatewayHeaders())) headers.set(key, value);
    return fetchImpl(input, { ...init, headers });
  };
}

/** An OpenAI client for the svc gateway whose requests are linked to the active span (see `gatewayHeaders`). */
export function gatewayOpenAI(options: GatewayOpenAIOptions = {}): OpenAI {
  const { baseUrl, apiKey, fetch: fetchOption, ...rest } = options;
  const url = setting(baseUrl, 'baseUrl', 'SVC_GATEWAY_URL');
  const key = setting(apiKey, 'apiKey', 'SVC_GATEWAY_KEY');
  const gateway = checkedBaseUrl(url.value, url.name).replace(/\/v1$/, '');
  const trimmedKey = key.value.trim();
  if (trimmedKey === '' || /\s/.test(trimmedKey))
    throw new SvcConfigError(key.name, 'must be a gateway key without whitespace');
  return new OpenAI({
    ...rest,
    baseURL: `${gateway}/v1`,
    apiKey: trimmedKey,
    fetch: linkedFetch(fetchOption ?? globalThis.fetch),
  });
}
