// The plugin contract, apiVersion 1 (docs/architecture.md "The plugin contract"). Custom plugins import these types.
import type { IncomingHttpHeaders } from 'node:http';
import type { BudgetPeriod, ModelGroupConfig, PriceConfig } from '../platform/config/types.ts';
import type { Logger } from '../platform/telemetry/logger.ts';
import type { ChatChunk, JsonObject, Usage } from '../platform/openai/wire-types.ts';
import type { StateStore } from './state.ts';

export const PLUGIN_API_VERSION = 1;

// The OpenAI wire shapes plugins see in bodies, chunks and usage.
export type { ChatChunk, JsonObject, Usage } from '../platform/openai/wire-types.ts';

export type RouteName = 'chat' | 'embeddings' | 'models';

export type AttemptOutcome = 'ok' | 'retryable' | 'failed' | 'timeout' | 'benched';

/** One provider attempt, as serialised in `x-svc-attempts` (docs/api.md, Response headers). */
export interface AttemptRecord {
  d: string;
  o: AttemptOutcome;
  ms: number;
  st?: number;
  why?: string;
  /** Epoch ms the attempt began; kept for the trace, not sent in `x-svc-attempts`. */
  startedAt?: number;
}

/**
 * Text a plugin found that must never be recorded (a guardrail detector's match). Tracing replaces it with
 * `[REDACTED:<detector>]` wherever the trace would hold it and keeps everything here but `text`.
 */
export interface Redaction {
  /** What matched, e.g. `secrets.aws_access_key`. */
  detector: string;
  where: 'prompt' | 'response';
  /** The field in the request or answer body, e.g. `messages[1].content`, `input[0]`, `choices[0].message.content`. */
  path: string;
  /** UTF-16 offsets of the match in that field's text, `[start, end)`. */
  start: number;
  end: number;
  /** The matched text itself: held in memory for the replacement, never written. */
  text: string;
}

/** Who is calling: the key that authenticated the request. */
export interface Principal {
  keyId: string;
  alias: string;
  projectId: string;
  agentId?: string;
  modelGroups: readonly string[];
  rpm?: number;
  tpm?: number;
  budgetUsd?: number;
  budgetPeriod?: BudgetPeriod;
  unit?: string;
}

/**
 * Where a response came from (as Kong's `kong.response.get_source()`): `upstream`, a provider, through the terminal
 * plugin; `cache`, a stored answer; `gateway`, a plugin's own reply, or a refusal or failure before any answer.
 */
export type ResponseSource = 'upstream' | 'cache' | 'gateway';

export interface JsonResponse {
  kind: 'json';
  status: number;
  /** Absent: `upstream` when the terminal plugin's `handle` made it, else `gateway`. */
  source?: ResponseSource;
  body: unknown;
  /** The provider's exact JSON text for `body`; written as-is unless a plugin with onResponse took part. */
  raw?: string;
  headers?: Record<string, string>;
}

export interface StreamResponse {
  kind: 'stream';
  status: number;
  /** Absent: `upstream` when the terminal plugin's `handle` made it, else `gateway`. */
  source?: ResponseSource;
  headers?: Record<string, string>;
  /**
   * Normalised chunks; throwing ends the stream in-band with `upstream_stream_error`. A chunk object an OpenAI-wire
   * adapter yielded is written as the provider's text unless an onEvent hook or an onResponse that replaced `events`
   * took part: a terminal plugin that changes such a chunk makes a new object rather than editing it in place.
   */
  events: AsyncIterable<ChatChunk>;
}

/** What `handle` produces and what `onRequest`/`onResponse` may return to end or replace the response. */
export type GatewayResponse = JsonResponse | StreamResponse;

/** What a request may use, estimated before it runs, for limits, budgets and stream costs (docs/plugins.md, The
 * admission estimate). */
export interface AdmissionEstimate {
  /** Chat: message text (about 4 characters a token) plus framing per message; embeddings: the input. */
  promptTokens: number;
  /** Chat: `max_completion_tokens`, else `max_tokens`, else 4096; embeddings: 0. */
  outputTokens: number;
}

/**
 * What a streamed answer's chunks said so far (`RequestContext.streamed`), gathered by the gateway once per chunk as
 * the chunk comes from the answer, before any event hook: read it instead of observing every chunk.
 */
export interface StreamedAnswer {
  /** Chunks the answer has produced. */
  readonly chunks: number;
  /** The model the first chunk naming one reports. */
  readonly model: string | undefined;
  /** Each choice's finish reason, in choice order. */
  finishReasons(): string[];
  /**
   * The assistant message of choice 0: its content up to `maxChars` (`truncated: true` when cut), its tool calls
   * (arguments kept while shorter than `maxChars`), its finish reason. Text is there as far as a plugin of the
   * pipeline asked for it with `streamedTextChars`.
   */
  message(maxChars: number): Record<string, unknown>;
  /** The content of every choice, the first `maxChars` characters of the stream in all, in the order they came. */
  texts(maxChars: number): StreamedTexts;
}

/** A streamed answer's content per choice, as `StreamedAnswer.texts` cuts it. */
export interface StreamedTexts {
  /** By choice index, the choices that said something. */
  choices: { index: number; text: string }[];
  /** Characters in `choices`. */
  chars: number;
  /** The stream carried more content than `choices` hold. */
  truncated: boolean;
}

/** What a request used (`RequestContext.consumed()`): what rate limits and budgets settle their reservations to. */
export interface Consumption {
  /** Tokens of its usage; 0 for a cache hit or when no provider answered. */
  tokens: number;
  /** USD its usage cost; 0 for a cache hit or when no provider answered. */
  usd: number;
  /** The usage is the gateway's estimate (`usageEstimated` says why). */
  estimated: boolean;
}

/** Why a request's usage is the gateway's estimate (`RequestContext.usageEstimated`). */
export type UsageEstimateReason = 'stream_interrupted' | 'provider_usage_invalid' | 'provider_usage_missing';

export interface RequestContext {
  readonly id: string;
  readonly route: RouteName;
  /** Epoch milliseconds when the request arrived. */
  readonly receivedAt: number;
  /** `performance.now()` when the request was in hand (its body received): x-svc-overhead-ms counts from here. */
  readonly overheadFrom: number;
  /** Milliseconds spent on providers so far: each attempt up to its answer (a stream: its first chunk) and the
   * backoff waits between attempts. x-svc-overhead-ms leaves this out. */
  providerMs: number;
  /** The gateway's own time (x-svc-overhead-ms), set when the response head is written; a stream then adds the
   * work on each chunk (event hooks, serialising, writing) until its end. Absent when nothing was answered. */
  overheadMs?: number;
  readonly headers: IncomingHttpHeaders;
  readonly clientIp: string | undefined;
  /** Parsed, shape-validated body (undefined for GET /v1/models). */
  readonly body: JsonObject | undefined;
  /** The body's size as received, bytes (0 for GET /v1/models): what decides that work on it goes to a worker thread. */
  readonly bodyBytes: number;
  readonly stream: boolean;
  /** The client asked for `stream_options.include_usage`. */
  readonly clientWantsUsage: boolean;
  /** The admission estimate, worked out from the body the first time it is asked for, then kept. */
  estimate(): AdmissionEstimate;
  principal?: Principal;
  /** The model group named by the request (or implied by a single-group key). */
  group?: ModelGroupConfig;
  /** The group that served the request (the fallback group when used). */
  servedGroup?: string;
  /** The deployment that served the request, or the last one tried when none did. */
  deployment?: string;
  /** Price of the deployment that served the request. */
  price?: PriceConfig;
  usage?: Usage;
  /**
   * Set when `usage` is the gateway's estimate, not the provider's count: the stream was cut after its first chunk
   * (`stream_interrupted`), the provider's usage was not a count (`provider_usage_invalid`), or the provider sent
   * none (`provider_usage_missing`: a JSON answer without `usage`, a stream that ended without a usage chunk).
   */
  usageEstimated?: UsageEstimateReason;
  /**
   * The provider's usage was not a sane count: replaced by an estimate (`invalid`) or its parts clamped (`repaired`);
   * or there was none, and it was estimated (`missing`).
   */
  providerUsageFault?: 'invalid' | 'repaired' | 'missing';
  /** USD; for streams the admission estimate until the stream ends. */
  cost?: number;
  costEstimated?: boolean;
  /**
   * What the request used, from `usage` and `cost` as they stand: nothing for a cache hit or when no provider answered;
   * undefined when a provider answered and there is no usage (a stream the drain stopped reading), so reservations
   * made at admission stand.
   */
  consumed(): Consumption | undefined;
  readonly attempts: AttemptRecord[];
  /** Facts for tracing, such as `gateway.refusal`. */
  readonly annotations: Record<string, unknown>;
  /** Text the trace must not hold (guardrail matches); see `Redaction`. */
  readonly redactions: Redaction[];
  /** Headers every plugin may add; written with the response. */
  readonly responseHeaders: Record<string, string>;
  readonly state: StateStore;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /** Set once the response status is known (also for refusals). */
  status?: number;
  /** The error that ended the request, if any. */
  error?: unknown;
  /** The error code the client received (a gateway code, the provider's, or upstream_stream_error); null when none. */
  errorCode?: string | null;
  /** The response as it was written (the body of a JSON response; a stream's events are gone once written). */
  response?: GatewayResponse;
  /** Set when a stream's head is written; the response writer feeds it each chunk. */
  streamed?: StreamedAnswer;
  /**
   * Where the answer came from, set by the runner as soon as a hook produced a response, or `gateway` when the
   * request ended without one. A later refusal of that answer (an output guardrail) leaves it as it was.
   */
  source?: ResponseSource;
  /** True when the client disconnected before the response completed. */
  clientAborted: boolean;
  readonly log: Logger;
}

/**
 * What the gateway knows of a request before its body is read (`onRequestHead`): the route, the headers and the
 * client's address. No body, no context yet.
 */
export interface RequestHead {
  /** The request's id (`x-svc-request-id`), for logs. */
  readonly id: string;
  readonly route: RouteName;
  readonly headers: IncomingHttpHeaders;
  readonly clientIp: string | undefined;
}

type Maybe<T> = T | Promise<T>;

export interface PluginHooks {
  /**
   * Runs on the request head before the body is read or parsed, every request plugin's in list order and all before
   * any onRequest: throw a GatewayError to refuse the request there (the body is then never read). Returns nothing.
   */
  onRequestHead?(head: RequestHead): Maybe<void>;
  onRequest?(ctx: RequestContext): Maybe<GatewayResponse | void>;
  /** Only the terminal plugin (the router) defines this. */
  handle?(ctx: RequestContext): Promise<GatewayResponse>;
  onResponse?(ctx: RequestContext, response: GatewayResponse): Maybe<GatewayResponse | void>;
  /**
   * Edits a stream: return a changed chunk, `null` to drop it, or nothing to keep it; throw a GatewayError to end
   * in-band. While any plugin of a stream has onEvent, every chunk of it is serialised again for the client.
   */
  onEvent?(ctx: RequestContext, chunk: ChatChunk): ChatChunk | null | void;
  /**
   * Reads a stream, chunk by chunk, without changing it (a plugin has this or onEvent, not both). When every event hook
   * of a stream is observeEvent, the client gets the provider's own event text; a chunk changed here would not reach
   * it. Throw a GatewayError to end the stream in-band.
   */
  observeEvent?(ctx: RequestContext, chunk: ChatChunk): void;
  onResponseEnd?(ctx: RequestContext): Maybe<void>;
  /** Runs after every request the plugin took part in, refusals and client aborts included. Never throws. */
  onLog?(ctx: RequestContext): void;
  /** Called when a reload replaced this instance and its in-flight requests finished. */
  close?(): Maybe<void>;
  /**
   * The most characters of a streamed answer's text this plugin reads from `ctx.streamed` (`message`, `texts`). The
   * gateway keeps the largest any plugin of the pipeline asks for, and no text when none asks.
   */
  readonly streamedTextChars?: number;
}
