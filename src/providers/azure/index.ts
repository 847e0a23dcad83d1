// Azure OpenAI: OpenAI wire format under /openai/deployments/{deployment}, `api-key` header, api-version query.
import type { DeploymentConfig } from '../../config/types.ts';
import { postJson, postStream, type Endpoint } from '../openai/http-transport.ts';
import { chatPayload, embeddingsPayload } from '../openai/payload.ts';
import type { ProviderAdapter, ProviderServices } from '../types.ts';

export function azureProvider(services: ProviderServices): ProviderAdapter {
  const endpoints = new WeakMap<DeploymentConfig, { chat: Endpoint; embeddings: Endpoint }>();
  const endpointsOf = (d: DeploymentConfig) => {
    let found = endpoints.get(d);
    if (!found) {
      const base = new URL(d.base_url!.replace(/\/+$/, ''));
      const headers: Record<string, string> = { 'content-type': 'application/json', 'api-key': d.api_key ?? '', ...d.headers };
      const prefix = `${base.pathname.replace(/\/$/, '')}/openai/deployments/${encodeURIComponent(d.deployment!)}`;
      const query = `?api-version=${encodeURIComponent(d.api_version!)}`;
      found = {
        chat: { origin: base.origin, path: `${prefix}/chat/completions${query}`, headers },
        embeddings: { origin: base.origin, path: `${prefix}/embeddings${query}`, headers },
      };
      endpoints.set(d, found);
    }
    return found;
  };
  return {
    name: 'azure',
    supportsEmbeddings: true,
    unavailableReason: (d) => (d.api_key ? undefined : 'api_key is empty'),
    // Azure routes by deployment name; `model` is sent only when configured.
    chat: (call) => postJson(services, endpointsOf(call.deployment).chat, chatPayload(call.body, call.deployment.model, false), call),
    chatStream: (call) => postStream(services, endpointsOf(call.deployment).chat, chatPayload(call.body, call.deployment.model, true), call),
    embeddings: (call) => postJson(services, endpointsOf(call.deployment).embeddings, embeddingsPayload(call.body, call.deployment.model), call),
  };
}
