// The services handed to a plugin's setup, and the interfaces behind them. The gateway implements them
// (src/gateway/…); plugins see only these shapes, so a custom plugin can be set up with fakes of its own.
import { hash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Clock } from '../platform/clock.ts';
import type { DeploymentConfig, GatewayConfig, ModelGroupConfig, BudgetPeriod } from '../platform/config/types.ts';
import type { Network } from '../platform/networks.ts';
import type { ChatChunk, JsonObject, Usage } from '../platform/openai/wire-types.ts';
import type { Counters, SharedValues } from '../platform/store/counters/counters.ts';
import type { Logger } from '../platform/telemetry/logger.ts';
import type { WorkerPool } from '../platform/workers/pool.ts';
import type { RequestContext } from './contract.ts';

/** Effects handed to plugins at setup; plugins never import singletons. */
export interface Services {
  readonly config: GatewayConfig;
  /** Directory relative paths resolve against (where gateway.yaml lives). */
  readonly baseDir: string;
  readonly clock: Clock;
  readonly dispatcher: Dispatcher;
  readonly keys: KeyStore;
  readonly modelGroups: ModelGroupRegistry;
  readonly providers: ProviderRegistry;
  readonly bench: BenchBoard;
  /** Builds the trace of a finished request and hands it to the trace writer. */
  readonly traces: TraceRecorder;
  /** Rate-limit windows, budget spend, shared cache: in-process, or Redis shared by every replica. */
  readonly counters: Counters;
  /**
   * Byte values held in this process under `name`, bounded by `maxBytes` (least recently used out): one store for
   * every thread of the process that serves the gateway. Redis-backed values are `counters.shared`.
   */
  processValues(name: string, maxBytes: number): SharedValues;
  /** Durable record of what requests cost, per budget and period (budget plugin). */
  readonly spend: SpendLedger;
  /** Worker threads for pure named tasks on plain data (src/runtime/worker-tasks.ts); threads start on first use. */
  readonly workers: WorkerPool;
  readonly log: Logger;
}

/** Deployment id → end of its bench (epoch ms), for the deployments benched now. */
export type BenchedDeployments = Map<string, number>;

export interface BenchBoard {
  /** The group's deployments benched now. In-process: answered synchronously; Redis: one round trip. */
  benched(group: ModelGroupConfig): BenchedDeployments | Promise<BenchedDeployments>;
  /** Benches the deployment for `ms` unless it is benched longer already; resolves with the bench's end. */
  bench(group: ModelGroupConfig, deploymentId: string, ms: number): Promise<number>;
}

export interface ModelGroupView {
  name: string;
  /** Unix seconds: `created_at` from the config, else when the group was first loaded (kept across restarts). */
  created: number;
  ownedBy: string;
  config: ModelGroupConfig;
}

export interface ModelGroupRegistry {
  get(name: string): ModelGroupConfig | undefined;
  view(name: string): ModelGroupView | undefined;
  /** The group, then its fallback chain (each group once): every group that may serve a request for `group`. */
  chain(group: ModelGroupConfig): ModelGroupConfig[];
}

export interface ProviderRegistry {
  forDeployment(deployment: DeploymentConfig): ProviderAdapter;
}

export interface ProviderCall {
  deployment: DeploymentConfig;
  /** The client's validated body; adapters copy before changing it. */
  body: JsonObject;
  /** The client's body size, bytes: a payload made from a body this large is serialised on a worker thread. */
  bodyBytes?: number;
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

/** A gateway key as the auth plugin sees it; the plaintext is never held, only its SHA-256. */
export interface KeyRecord {
  id: string;
  alias: string;
  projectId: string;
  agentId?: string;
  modelGroups: readonly string[];
  hash: Buffer;
  /** Epoch ms after which the key is expired (expiry or end of the rotation grace window). */
  expiresAtMs?: number;
  blocked: boolean;
  networks?: readonly Network[];
  rpm?: number;
  tpm?: number;
  budgetUsd?: number;
  /** The period of budgetUsd ('total' for minted keys). */
  budgetPeriod?: BudgetPeriod;
  /** The organization unit the key belongs to (gateway.yaml keys only). */
  unit?: string;
  /** Serving is off for the key's project (gateway.yaml or the dashboard): the key is refused as invalid_api_key. */
  servingOff?: boolean;
}

/** The SHA-256 of a presented key: what a KeyStore finds keys by, so no plaintext key is ever held. */
export function hashKey(plaintext: string): Buffer {
  return hash('sha256', plaintext, 'buffer');
}

export interface KeyStore {
  /** The key whose SHA-256 is `hash`, compared in constant time, or undefined. */
  find(hash: Buffer): KeyRecord | undefined;
  /** True when keys cannot be confirmed current (the store has been unreachable too long). */
  stale?(): boolean;
}

/** The cost of one request against one budget. */
export interface Spend {
  budgetId: string;
  periodId: string;
  projectId: string;
  usdNano: number;
}

export interface SpendLedger {
  /** Adds settled costs; never blocks, never throws. */
  record(spends: readonly Spend[]): void;
  /**
   * Nano-USD stored for a budget and period, plus what this process has recorded but not stored yet. Rejects with
   * StoreUnavailableError when the store cannot be reached.
   */
  spent(budgetId: string, periodId: string): Promise<number>;
}

/** What the tracing plugin asks the trace recorder to keep of one finished request. */
export interface TraceRecordOptions {
  /** Messages and answers are recorded; otherwise the trace keeps the request's facts only. */
  recordContent: boolean;
  /** The longest streamed answer kept, in characters. */
  maxOutputChars: number;
  /** When the request ended (epoch ms). */
  now: number;
}

/** Turns a finished request into a gateway trace for the trace writer, which writes it off the request path. */
export interface TraceRecorder {
  record(ctx: RequestContext, options: TraceRecordOptions): void;
}
