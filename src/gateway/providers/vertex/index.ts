// Google Vertex AI family: Gemini (generateContent / streamGenerateContent) and Claude on Vertex (rawPredict),
// behind the OpenAI shape, with service-account OAuth.
import type { DeploymentConfig } from '../../../platform/config/types.ts';
import { GatewayError } from '../../../platform/errors/gateway-error.ts';
import type { ChatChunk } from '../../../platform/openai/wire-types.ts';
import { splitBaseUrl } from '../openai/wire-adapter.ts';
import type { ProviderServices } from '../types.ts';
import { UpstreamError } from '../../../plugin-api/errors.ts';
import { claudeOnVertexDecoder, claudeOnVertexPayload, claudeOnVertexResponse } from './claude-on-vertex.ts';
import { geminiRequest } from './gemini-request.ts';
import { geminiResponse } from './gemini-response.ts';
import { geminiStreamDecoder } from './gemini-stream-decoder.ts';
import { GOOGLE_TOKEN_URL, accessTokens, readServiceAccount, type ServiceAccount } from './oauth.ts';
import { expectEventStream, readJsonObject, relayEvents, vertexPost, type VertexTarget } from './vertex-transport.ts';
import type { ProviderAdapter, ProviderCall, ProviderResult } from '../../../plugin-api/services.ts';

export interface VertexDeployment {
  account: ServiceAccount;
  tokenUrl: string;
  origin: string;
  /** `/v1/projects/{p}/locations/{l}/publishers/{publisher}/models/{model}`, before the `:method`. */
  modelPath: string;
  model: string;
  /** Claude on Vertex (publisher anthropic, rawPredict) rather than Gemini. */
  claude: boolean;
}

/** Default host of a location; `global` has no regional prefix. */
export function vertexBaseUrl(location: string): string {
  return location === 'global' ? 'https://aiplatform.googleapis.com' : `https://${location}-aiplatform.googleapis.com`;
}

export function vertexProvider(services: ProviderServices): ProviderAdapter {
  const tokens = accessTokens(services);
  // Resolved once per deployment object (credentials file read once); a reload brings new objects.
  const resolved = new WeakMap<DeploymentConfig, VertexDeployment | Error>();
  const resolve = (d: DeploymentConfig): VertexDeployment | Error => {
    let found = resolved.get(d);
    if (!found) {
      found = describe(d, services.baseDir);
      resolved.set(d, found);
    }
    return found;
  };
  const deploymentOf = (d: DeploymentConfig): VertexDeployment => {
    const found = resolve(d);
    if (found instanceof Error)
      throw new UpstreamError('connect', `deployment '${d.id}' cannot be used: ${found.message}`);
    return found;
  };
  const target = (v: VertexDeployment, method: string): VertexTarget => ({
    origin: v.origin,
    path: `${v.modelPath}:${method}`,
    account: v.account,
    tokenUrl: v.tokenUrl,
  });
  const created = () => Math.floor(services.now() / 1000);

  async function chat(call: ProviderCall): Promise<ProviderResult> {
    const v = deploymentOf(call.deployment);
    if (v.claude) {
      const res = await vertexPost(services, tokens, target(v, 'rawPredict'), claudeOnVertexPayload(call, false), call);
      return claudeOnVertexResponse((await readJsonObject(res, call)).body, { model: v.model, created: created() });
    }
    const payload = geminiRequest(call.body, { defaultMaxTokens: call.deployment.default_max_tokens });
    const res = await vertexPost(services, tokens, target(v, 'generateContent'), payload, call);
    const { body } = await readJsonObject(res, call);
    return geminiResponse(body, { model: v.model, created: created() });
  }

  async function chatStream(call: ProviderCall): Promise<AsyncIterable<ChatChunk>> {
    const v = deploymentOf(call.deployment);
    const [method, payload, decoder] = v.claude
      ? [
          'streamRawPredict',
          claudeOnVertexPayload(call, true),
          claudeOnVertexDecoder({ model: v.model, created: created() }),
        ]
      : [
          'streamGenerateContent?alt=sse',
          geminiRequest(call.body, { defaultMaxTokens: call.deployment.default_max_tokens }),
          geminiStreamDecoder({ model: v.model, created: created() }),
        ];
    const res = await vertexPost(services, tokens, target(v, method), payload, call);
    await expectEventStream(res);
    return relayEvents(res.body, decoder, call.signal);
  }

  return {
    name: 'vertex',
    supportsEmbeddings: false,
    unavailableReason: (d) => {
      const found = resolve(d);
      return found instanceof Error ? found.message : undefined;
    },
    chat,
    chatStream,
    // The router never sends embeddings here (supportsEmbeddings is false); this guards direct callers.
    embeddings: () =>
      Promise.reject(
        new GatewayError('embeddings_not_supported', 'Vertex deployments offer no embeddings API through the gateway.'),
      ),
  };
}

function describe(d: DeploymentConfig, baseDir: string): VertexDeployment | Error {
  if (!d.gcp) return new Error('gcp (project, location, credentials) is missing');
  if (!d.model) return new Error('model is missing');
  let account: ServiceAccount;
  try {
    account = readServiceAccount(d.gcp, baseDir);
  } catch (err) {
    return err as Error;
  }
  const { origin, prefix } = splitBaseUrl(d.base_url ?? vertexBaseUrl(d.gcp.location));
  const claude = d.model.startsWith('claude');
  const publisher = claude ? 'anthropic' : 'google';
  const { project, location } = d.gcp;
  return {
    account,
    tokenUrl: d.gcp.token_url ?? account.token_uri ?? GOOGLE_TOKEN_URL,
    origin,
    modelPath: `${prefix}/v1/projects/${project}/locations/${location}/publishers/${publisher}/models/${d.model}`,
    model: d.model,
    claude,
  };
}
