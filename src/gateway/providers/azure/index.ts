// Azure OpenAI: OpenAI wire format under /openai/deployments/{deployment}, `api-key` header, api-version query.
import { openAIWireAdapter, splitBaseUrl } from '../openai/wire-adapter.ts';
import type { ProviderServices } from '../types.ts';
import type { ProviderAdapter } from '../../../plugin-api/services.ts';

export function azureProvider(services: ProviderServices): ProviderAdapter {
  // Azure routes by deployment name; `model` is sent only when configured.
  return openAIWireAdapter('azure', services, (d) => {
    const { origin, prefix } = splitBaseUrl(d.base_url!);
    const headers = { 'content-type': 'application/json', 'api-key': d.api_key ?? '', ...d.headers };
    const base = `${prefix}/openai/deployments/${encodeURIComponent(d.deployment!)}`;
    const query = `?api-version=${encodeURIComponent(d.api_version!)}`;
    return {
      chat: { origin, path: `${base}/chat/completions${query}`, headers },
      embeddings: { origin, path: `${base}/embeddings${query}`, headers },
    };
  });
}
