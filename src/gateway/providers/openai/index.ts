// OpenAI-compatible family: any server speaking the OpenAI REST API under a base URL.
import type { ProviderServices } from '../types.ts';
import { openAIWireAdapter, splitBaseUrl } from './wire-adapter.ts';
import type { ProviderAdapter } from '../../../plugin-api/services.ts';

export function openaiProvider(services: ProviderServices): ProviderAdapter {
  return openAIWireAdapter('openai', services, (d) => {
    const { origin, prefix, search } = splitBaseUrl(d.base_url!);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${d.api_key}`, ...d.headers };
    return {
      chat: { origin, path: `${prefix}/chat/completions${search}`, headers },
      embeddings: { origin, path: `${prefix}/embeddings${search}`, headers },
    };
  });
}
