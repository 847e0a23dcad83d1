import type { Dispatcher } from 'undici';
import type { DeploymentConfig } from '../../platform/config/types.ts';
import type { ChatChunk, JsonObject, Usage } from '../../platform/openai/wire-types.ts';
import type { Logger } from '../../platform/telemetry/logger.ts';
import type { WorkerPool } from '../../platform/workers/pool.ts';

export interface ProviderCall {
  deployment: DeploymentConfig;
  /** The client's validated body; adapters copy before changing it. */
  body: JsonObject;
  /** Aborts a streamed call (idle timeout, or the drain deadline after the client left); absent for non-streamed calls. */
  signal?: AbortSignal;
  /** Longest wait for the response headers and between body chunks. */
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
  /** Worker threads for signing and whole-body translation of large bodies (src/runtime/worker-tasks.ts). */
  workers: WorkerPool;
  /** Where gateway.yaml lives: relative credential file paths resolve against it. */
  baseDir: string;
  log: Logger;
}
