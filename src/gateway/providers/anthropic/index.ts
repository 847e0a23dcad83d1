// Anthropic family: the Messages API behind the OpenAI shape (docs/providers/anthropic.md).
import type { Dispatcher } from 'undici';
import type { DeploymentConfig } from '../../../platform/config/types.ts';
import { GatewayError } from '../../../platform/errors/gateway-error.ts';
import type { ChatChunk, JsonObject } from '../../../platform/openai/wire-types.ts';
import { jsonObjectBody, relayBody, send, smallBodyText, type Endpoint } from '../http.ts';
import { payloadBytes } from '../payload-bytes.ts';
import type { ProviderServices } from '../types.ts';
import { UpstreamError, retryAfterMs } from '../../../plugin-api/errors.ts';
import { anthropicHttpError } from './error-mapping.ts';
import { toAnthropicRequest } from './request-translation.ts';
import { fromAnthropicResponse } from './response-translation.ts';
import { decodeAnthropicSse } from './stream-decoder.ts';
import type { ProviderAdapter, ProviderCall, ProviderResult } from '../../../plugin-api/services.ts';

export const DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/** `base_url` is the API root as in Anthropic's SDKs (no `/v1`); a trailing `/v1` is tolerated. */
function targetOf(d: DeploymentConfig): Endpoint {
  const url = new URL((d.base_url ?? DEFAULT_BASE_URL).replace(/\/+$/, ''));
  const prefix = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return {
    origin: url.origin,
    path: `${prefix}/v1/messages${url.search}`,
    headers: {
      'content-type': 'application/json',
      'x-api-key': d.api_key ?? '',
      'anthropic-version': d.anthropic_version ?? DEFAULT_ANTHROPIC_VERSION,
      ...d.headers,
    },
  };
}

export function anthropicProvider(services: ProviderServices): ProviderAdapter {
  // Derived once per deployment object; a reload brings new objects.
  const targets = new WeakMap<DeploymentConfig, Endpoint>();
  const targetFor = (d: DeploymentConfig) => {
    let found = targets.get(d);
    if (!found) targets.set(d, (found = targetOf(d)));
    return found;
  };
  const created = () => Math.floor(services.now() / 1000);

  function payloadOf(call: ProviderCall, stream: boolean): JsonObject {
    const payload = toAnthropicRequest(call.body, {
      model: call.deployment.model,
      defaultMaxTokens: call.deployment.default_max_tokens,
    });
    if (stream) payload.stream = true;
    else delete payload.stream;
    return payload;
  }

  // A non-2xx answer becomes the mapped Anthropic error, with its retry hint.
  async function postAccepted(call: ProviderCall, payload: JsonObject): Promise<Dispatcher.ResponseData> {
    const res = await send(services, targetFor(call.deployment), await payloadBytes(services, payload, call), call);
    if (res.statusCode >= 200 && res.statusCode < 300) return res;
    const text = await smallBodyText(res.body);
    throw anthropicHttpError(res.statusCode, text, retryAfterMs(res.headers, services.now()));
  }

  return {
    name: 'anthropic',
    supportsEmbeddings: false,
    unavailableReason: (d) => (d.api_key ? undefined : 'api_key is empty'),

    async chat(call): Promise<ProviderResult> {
      const res = await postAccepted(call, payloadOf(call, false));
      return fromAnthropicResponse((await jsonObjectBody(res, call.signal)).body, {
        created: created(),
        model: call.deployment.model,
      });
    },

    async chatStream(call): Promise<AsyncIterable<ChatChunk>> {
      const res = await postAccepted(call, payloadOf(call, true));
      const type = String(res.headers['content-type'] ?? '');
      if (!type.includes('text/event-stream')) {
        // An error envelope with status 200 is a provider failure; anything else is not a stream at all.
        const asError = anthropicHttpError(502, await smallBodyText(res.body));
        if (asError.envelope) throw asError;
        throw new UpstreamError(
          'invalid_response',
          `provider answered a stream request with '${type || 'no content type'}'`,
          { status: res.statusCode },
        );
      }
      const options = { created: created(), model: call.deployment.model };
      return relayBody(res.body, (bytes) => decodeAnthropicSse(bytes, options), call.signal);
    },

    embeddings(): Promise<ProviderResult> {
      // The router never sends embeddings here (supportsEmbeddings is false); this guards direct callers.
      return Promise.reject(
        new GatewayError('embeddings_not_supported', 'Anthropic deployments offer no embeddings API.'),
      );
    },
  };
}
