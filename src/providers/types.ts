import type { Dispatcher } from 'undici';
import type { DeploymentConfig } from '../config/types.ts';
import type { ChatChunk, JsonObject, Usage } from '../pipeline/types.ts';

export interface ProviderCall {
  deployment: DeploymentConfig;
  /** The client's validated body; adapters copy before changing it. */
  body: JsonObject;
  /** Aborts the upstream call (attempt timeout, or a drain deadline after the client left). */
  signal: AbortSignal;
  /** Longest wait for headers and between body chunks. */
  timeoutMs: number;
}

export interface ProviderResult {
  body: JsonObject;
  /** The exact JSON text `body` was parsed from, when it came from the wire unchanged. */
  raw?: string;
  usage?: Usage;
}

/** One provider family: translation, transport and error mapping behind the OpenAI shape. */
export interface ProviderAdapter {
  readonly name: string;
  readonly supportsEmbeddings: boolean;
  /** Why a deployment cannot take traffic (for example no API key), or undefined when it can. */
  unavailableReason(deployment: DeploymentConfig): string | undefined;
  chat(call: ProviderCall): Promise<ProviderResult>;
  /** Resolves once the provider accepted the stream; chunks follow. Throws UpstreamError. */
  chatStream(call: ProviderCall): Promise<AsyncIterable<ChatChunk>>;
  embeddings(call: ProviderCall): Promise<ProviderResult>;
}

export interface ProviderServices {
  dispatcher: Dispatcher;
  now(): number;
}
