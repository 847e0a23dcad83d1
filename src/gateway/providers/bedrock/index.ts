// AWS Bedrock family: Converse and ConverseStream behind the OpenAI shape (docs/providers/bedrock.md).
import { randomUUID } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { DeploymentConfig } from '../../../platform/config/types.ts';
import { GatewayError } from '../../../platform/errors/gateway-error.ts';
import type { ChatChunk } from '../../../platform/openai/wire-types.ts';
import { jsonObjectBody, relayBody, send, smallBodyText } from '../http.ts';
import { splitBaseUrl } from '../openai/wire-adapter.ts';
import type { ProviderServices } from '../types.ts';
import { UpstreamError } from '../../../plugin-api/errors.ts';
import { httpError } from './error-mapping.ts';
import { eventStreamEvents } from './event-stream-decoder.ts';
import { converseRequest } from './request-translation.ts';
import { chatCompletion, type ResponseMeta } from './response-translation.ts';
import { bedrockAuth, modelPath, signRequest, type AwsEnvironment } from './signing.ts';
import { converseStreamChunks } from './stream-translation.ts';
import type { ProviderAdapter, ProviderCall, ProviderResult } from '../../../plugin-api/services.ts';

const EVENT_STREAM = 'application/vnd.amazon.eventstream';
/**
 * Bodies from this size on are hashed for SigV4 on a worker thread. Measured with bench/bedrock-sigv4-hash.ts:
 * inline @aws-crypto/sha256-js costs ~0.15 ms of event loop at 16 KiB (~9.5 ms at 1 MiB), a pool round trip
 * ~0.09 ms of which ~0.02 ms on the event loop; below ~8 KiB the hop costs more than the hash.
 */
export const HASH_IN_WORKER_BYTES = 16 * 1024;

/**
 * `env` is read once, here: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN serve deployments whose
 * `aws` section names no keys and that have no `api_key`.
 */
export function bedrockProvider(services: ProviderServices, env: AwsEnvironment = process.env): ProviderAdapter {
  const captured: AwsEnvironment = {
    AWS_ACCESS_KEY_ID: env.AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: env.AWS_SECRET_ACCESS_KEY,
    AWS_SESSION_TOKEN: env.AWS_SESSION_TOKEN,
  };

  async function post(call: ProviderCall, operation: 'converse' | 'converse-stream'): Promise<Dispatcher.ResponseData> {
    const d = call.deployment;
    const auth = bedrockAuth(d, captured);
    if (!auth) throw new UpstreamError('connect', 'Bedrock deployment has no credentials');
    const payload = JSON.stringify(converseRequest(call.body, d));
    const { origin, prefix } = splitBaseUrl(d.base_url ?? `https://bedrock-runtime.${d.aws!.region}.amazonaws.com`);
    const url = new URL(modelPath(prefix, d.model!, operation), origin);
    const base: Record<string, string> = {
      ...d.headers,
      'content-type': 'application/json',
      accept: operation === 'converse' ? 'application/json' : EVENT_STREAM,
    };
    let headers: Record<string, string>;
    if (auth.kind === 'bearer') headers = { ...base, authorization: `Bearer ${auth.apiKey}` };
    else {
      // The signer takes a given x-amz-content-sha256 as the payload hash instead of hashing the body itself.
      if (Buffer.byteLength(payload) >= HASH_IN_WORKER_BYTES)
        base['x-amz-content-sha256'] = await services.workers.run('sigv4PayloadHash', payload);
      headers = await signRequest(
        { method: 'POST', url, headers: base, body: payload },
        { credentials: auth.credentials, region: auth.region, date: new Date(services.now()) },
      );
    }
    return send(services, { origin, path: url.pathname, headers }, payload, call);
  }

  async function failure(res: Dispatcher.ResponseData): Promise<UpstreamError> {
    const text = await smallBodyText(res.body);
    return httpError(res.statusCode, res.headers, text, services.now());
  }

  const meta = (d: DeploymentConfig, res: Dispatcher.ResponseData): ResponseMeta => {
    const requestId = res.headers['x-amzn-requestid'];
    return {
      id: `chatcmpl-${typeof requestId === 'string' && requestId !== '' ? requestId : randomUUID()}`,
      model: d.model,
      created: Math.floor(services.now() / 1000),
    };
  };

  async function chat(call: ProviderCall): Promise<ProviderResult> {
    const res = await post(call, 'converse');
    if (res.statusCode < 200 || res.statusCode >= 300) throw await failure(res);
    return chatCompletion((await jsonObjectBody(res, call.signal)).body, meta(call.deployment, res));
  }

  async function chatStream(call: ProviderCall): Promise<AsyncIterable<ChatChunk>> {
    const res = await post(call, 'converse-stream');
    if (res.statusCode < 200 || res.statusCode >= 300) throw await failure(res);
    const type = String(res.headers['content-type'] ?? '');
    if (!type.includes(EVENT_STREAM)) {
      const text = await smallBodyText(res.body);
      throw new UpstreamError(
        'invalid_response',
        `Bedrock answered a stream request with '${type || 'no content type'}': ${text.slice(0, 200)}`,
        {
          status: res.statusCode,
        },
      );
    }
    const m = meta(call.deployment, res);
    return relayBody(res.body, (bytes) => converseStreamChunks(eventStreamEvents(bytes), m), call.signal);
  }

  return {
    name: 'bedrock',
    supportsEmbeddings: false,
    unavailableReason: (d) =>
      bedrockAuth(d, captured) ? undefined : 'no AWS credentials (aws keys, AWS_* environment) and no api_key',
    chat,
    chatStream,
    // The router never sends embeddings here (supportsEmbeddings is false); this guards direct callers.
    embeddings: () =>
      Promise.reject(new GatewayError('embeddings_not_supported', 'AWS Bedrock deployments offer no embeddings API.')),
  };
}
