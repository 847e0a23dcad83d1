// OpenAI-compatible family: any server speaking the OpenAI REST API under a base URL.
import type { DeploymentConfig } from '../../config/types.ts';
import type { ProviderAdapter, ProviderServices } from '../types.ts';
import { postJson, postStream, type Endpoint } from './http-transport.ts';
import { chatPayload, embeddingsPayload } from './payload.ts';

export function openaiProvider(services: ProviderServices): ProviderAdapter {
  const endpoints = new WeakMap<DeploymentConfig, { chat: Endpoint; embeddings: Endpoint }>();
  const endpointsOf = (d: DeploymentConfig) => {
    let found = endpoints.get(d);
    if (!found) {
      const base = new URL(d.base_url!.replace(/\/+$/, ''));
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        authorization: `Bearer ${d.api_key}`,
        ...d.headers,
      };
      const at = (suffix: string): Endpoint => ({ origin: base.origin, path: `${base.pathname.replace(/\/$/, '')}${suffix}${base.search}`, headers });
      found = { chat: at('/chat/completions'), embeddings: at('/embeddings') };
      endpoints.set(d, found);
    }
    return found;
  };
  return {
    name: 'openai',
    supportsEmbeddings: true,
    unavailableReason: (d) => (d.api_key ? undefined : 'api_key is empty'),
    chat: (call) => postJson(services, endpointsOf(call.deployment).chat, chatPayload(call.body, call.deployment.model, false), call),
    chatStream: (call) => postStream(services, endpointsOf(call.deployment).chat, chatPayload(call.body, call.deployment.model, true), call),
    embeddings: (call) => postJson(services, endpointsOf(call.deployment).embeddings, embeddingsPayload(call.body, call.deployment.model), call),
  };
}
