// Claude on Vertex (docs/providers/vertex.md "Claude on Vertex"): rawPredict / streamRawPredict with the Anthropic
// Messages body minus `model` plus `anthropic_version: vertex-2023-10-16`; answers are native Anthropic, so the
// Anthropic converters read them.
import type { JsonObject } from '../../../platform/openai/wire-types.ts';
import { toAnthropicRequest } from '../anthropic/request-translation.ts';
import { fromAnthropicResponse } from '../anthropic/response-translation.ts';
import { createAnthropicStreamDecoder } from '../anthropic/stream-decoder.ts';
import { UpstreamError } from '../../../plugin-api/errors.ts';
import type { EventDecoder } from './vertex-transport.ts';
import type { ProviderCall } from '../../../plugin-api/services.ts';

export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

export function claudeOnVertexPayload(call: ProviderCall, stream: boolean): JsonObject {
  const payload = toAnthropicRequest(call.body, {
    anthropicVersion: VERTEX_ANTHROPIC_VERSION,
    defaultMaxTokens: call.deployment.default_max_tokens,
  });
  delete payload.model;
  if (stream) payload.stream = true;
  else delete payload.stream;
  return payload;
}

export const claudeOnVertexResponse = fromAnthropicResponse;

/** The Anthropic stream decoder, ended like the Gemini one: an answer without `message_stop` is incomplete. */
export function claudeOnVertexDecoder(options: { model: string; created: number }): EventDecoder {
  const decoder = createAnthropicStreamDecoder(options);
  return {
    // Events after message_stop (none are expected) are read only to return the connection to the pool.
    push: (event) => (decoder.done ? [] : decoder.push(event)),
    end() {
      if (!decoder.done) throw new UpstreamError('connect', 'provider closed the stream before message_stop');
      return [];
    },
  };
}
