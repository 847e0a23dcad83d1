import type { JsonObject } from '../../../platform/openai/wire-types.ts';
import { isObject } from '../../../platform/validation/json-object.ts';

/**
 * The client's body for an OpenAI-wire upstream: the deployment's model replaces the group name, and
 * streams always ask for the final usage chunk (docs/api.md, Streaming) so every stream is costed from real usage.
 */
export function chatPayload(body: JsonObject, model: string | undefined, stream: boolean): JsonObject {
  const payload: JsonObject = { ...body };
  if (model === undefined) delete payload.model;
  else payload.model = model;
  if (stream) {
    const options = typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {};
    payload.stream_options = { ...options, include_usage: true };
  }
  return payload;
}

/** The client itself asked for the usage chunk (`stream_options.include_usage`), not only the gateway. */
export function clientAsksForUsage(body: JsonObject): boolean {
  const options = body.stream_options;
  return isObject(options) && options.include_usage === true;
}

/** The client's body for an embeddings API: the gateway answers embeddings unstreamed (docs/decisions.md,
 * Embeddings and stream), so a `stream` flag the client sent is not passed on for the provider to stream or refuse. */
export function embeddingsPayload(body: JsonObject, model: string | undefined): JsonObject {
  const { stream: _stream, stream_options: _streamOptions, ...payload } = body;
  if (model === undefined) delete payload.model;
  else payload.model = model;
  return payload;
}
