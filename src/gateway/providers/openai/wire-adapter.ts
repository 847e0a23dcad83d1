import type { DeploymentConfig } from '../../../platform/config/types.ts';
import type { ProviderServices } from '../types.ts';
import type { Endpoint } from '../http.ts';
import { postJson, postStream } from './http-transport.ts';
import { chatPayload, embeddingsPayload } from './payload.ts';
import type { ProviderAdapter } from '../../../plugin-api/services.ts';

export interface WireEndpoints {
  chat: Endpoint;
  embeddings: Endpoint;
}

/** An adapter for any provider that speaks the OpenAI wire format; only addressing and auth differ. */
export function openAIWireAdapter(
  name: string,
  services: ProviderServices,
  endpointsFor: (d: DeploymentConfig) => WireEndpoints,
): ProviderAdapter {
  // Endpoints are derived once per deployment object; a reload brings new objects and new endpoints.
  const cache = new WeakMap<DeploymentConfig, WireEndpoints>();
  const endpointsOf = (d: DeploymentConfig) => {
    let found = cache.get(d);
    if (!found) {
      found = endpointsFor(d);
      cache.set(d, found);
    }
    return found;
  };
  return {
    name,
    supportsEmbeddings: true,
    unavailableReason: (d) => (d.api_key ? undefined : 'api_key is empty'),
    chat: (call) =>
      postJson(services, endpointsOf(call.deployment).chat, chatPayload(call.body, call.deployment.model, false), call),
    chatStream: (call) =>
      postStream(
        services,
        endpointsOf(call.deployment).chat,
        chatPayload(call.body, call.deployment.model, true),
        call,
      ),
    embeddings: (call) =>
      postJson(
        services,
        endpointsOf(call.deployment).embeddings,
        embeddingsPayload(call.body, call.deployment.model),
        call,
      ),
  };
}

/** Base URL without trailing slashes, split into origin and path prefix. */
export function splitBaseUrl(baseUrl: string): { origin: string; prefix: string; search: string } {
  const url = new URL(baseUrl.replace(/\/+$/, ''));
  return { origin: url.origin, prefix: url.pathname.replace(/\/$/, ''), search: url.search };
}
