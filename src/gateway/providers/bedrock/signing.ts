// Bedrock auth: AWS SigV4 (service `bedrock`) with @smithy/signature-v4, or a Bedrock API key as a Bearer token.
import type { DeploymentConfig } from '../../../platform/config/types.ts';

/**
 * The signer and its hash, loaded on the first signed request: a service with no SigV4 deployment never holds them
 * (about 2 MB of heap in every thread that serves requests).
 */
let signerModules: Promise<[typeof import('@smithy/signature-v4'), typeof import('@aws-crypto/sha256-js')]> | undefined;

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export type BedrockAuth =
  { kind: 'bearer'; apiKey: string } | { kind: 'sigv4'; credentials: AwsCredentials; region: string };

/** The AWS variables the adapter reads, once, when it is created. */
export interface AwsEnvironment {
  AWS_ACCESS_KEY_ID?: string;
  AWS_SECRET_ACCESS_KEY?: string;
  AWS_SESSION_TOKEN?: string;
}

/**
 * A Bedrock API key wins; then static keys from gateway.yaml (with their own session token only); then the
 * AWS_* environment captured at start. Undefined when the deployment has no usable credentials.
 */
export function bedrockAuth(d: DeploymentConfig, env: AwsEnvironment): BedrockAuth | undefined {
  if (d.api_key) return { kind: 'bearer', apiKey: d.api_key };
  const region = d.aws?.region;
  if (!region) return undefined;
  const { access_key_id, secret_access_key, session_token } = d.aws ?? {};
  if (access_key_id || secret_access_key) {
    if (!access_key_id || !secret_access_key) return undefined;
    return {
      kind: 'sigv4',
      region,
      credentials: {
        accessKeyId: access_key_id,
        secretAccessKey: secret_access_key,
        sessionToken: session_token || undefined,
      },
    };
  }
  if (!env.AWS_ACCESS_KEY_ID || !env.AWS_SECRET_ACCESS_KEY) return undefined;
  return {
    kind: 'sigv4',
    region,
    credentials: {
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      sessionToken: env.AWS_SESSION_TOKEN || undefined,
    },
  };
}

/** `/model/{id}/converse`: the id is percent-encoded once on the wire (`:` → `%3A`, `/` of an ARN → `%2F`). */
export function modelPath(prefix: string, modelId: string, operation: 'converse' | 'converse-stream'): string {
  return `${prefix}/model/${encodeURIComponent(modelId)}/${operation}`;
}

export interface SignableRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string;
}

export interface SigningOptions {
  credentials: AwsCredentials;
  region: string;
  date: Date;
  /** `bedrock` for Bedrock; other values only for the AWS test-suite vectors. */
  service?: string;
}

/**
 * The request's headers plus `x-amz-date`, `x-amz-security-token` (session credentials) and `authorization`.
 * The signer URI-encodes each path segment again (uriEscapePath), so a wire `%3A` signs as `%253A`, which is
 * what AWS expects for every service but S3 (LiteLLM#15788). A caller-set `x-amz-content-sha256` is used as
 * the payload hash instead of hashing the body again.
 */
export async function signRequest(request: SignableRequest, options: SigningOptions): Promise<Record<string, string>> {
  const [{ SignatureV4 }, { Sha256 }] = await (signerModules ??= Promise.all([
    import('@smithy/signature-v4'),
    import('@aws-crypto/sha256-js'),
  ]));
  const signer = new SignatureV4({
    service: options.service ?? 'bedrock',
    region: options.region,
    credentials: options.credentials,
    sha256: Sha256,
    uriEscapePath: true,
    applyChecksum: false,
  });
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of request.url.searchParams) {
    const prev = query[k];
    query[k] = prev === undefined ? v : [...(Array.isArray(prev) ? prev : [prev]), v];
  }
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: request.url.protocol,
      hostname: request.url.hostname,
      port: request.url.port ? Number(request.url.port) : undefined,
      path: request.url.pathname,
      query,
      headers: { host: request.url.host, ...request.headers },
      body: request.body,
    },
    { signingDate: options.date },
  );
  return signed.headers;
}
