// SvcClient: the REST client for the public API (prompts, datasets, scores) and the credential check.
import { countOption, resolveConnection, timeoutMsOption, type ConnectionOptions } from './config.ts';
import { DatasetsClient } from './datasets.ts';
import { SvcConfigError, SvcError } from './errors.ts';
import { HttpClient } from './http.ts';
import { PromptsClient } from './prompts.ts';
import { ScoresClient } from './scores.ts';

export interface SvcClientOptions extends ConnectionOptions {
  /** Per request, in milliseconds; default `SVC_TIMEOUT` (seconds) else 5,000. A request that times out is not retried. */
  timeoutMs?: number;
  /** Retries after the first attempt on 429, 5xx and connection failures; default 2. */
  maxRetries?: number;
  /** Default cache lifetime of fetched prompts, in seconds; default 60. */
  promptCacheTtlSeconds?: number;
  /** A fetch implementation; default the global `fetch`. */
  fetch?: typeof fetch;
}

export class SvcClient {
  readonly baseUrl: string;
  readonly publicKey: string;
  readonly prompts: PromptsClient;
  readonly datasets: DatasetsClient;
  readonly scores: ScoresClient;
  readonly #http: HttpClient;

  /** Options override the environment (`SVC_PUBLIC_KEY`, `SVC_SECRET_KEY`, `SVC_BASE_URL`); a bad setting throws SvcConfigError. */
  constructor(options: SvcClientOptions = {}) {
    const connection = resolveConnection(options);
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function')
      throw new SvcConfigError('fetch', 'is not available: use Node 20 or later, or pass a fetch option');
    this.baseUrl = connection.baseUrl;
    this.publicKey = connection.publicKey;
    this.#http = new HttpClient({
      connection,
      timeoutMs: timeoutMsOption(options.timeoutMs),
      maxRetries: countOption(options.maxRetries, 'maxRetries', 2),
      fetch: fetchImpl,
    });
    const ttl = options.promptCacheTtlSeconds ?? 60;
    if (!Number.isFinite(ttl) || ttl < 0)
      throw new SvcConfigError('promptCacheTtlSeconds', `must be 0 or more, not ${String(ttl)}`);
    this.prompts = new PromptsClient(this.#http, ttl);
    this.datasets = new DatasetsClient(this.#http);
    this.scores = new ScoresClient(this.#http);
  }

  /**
   * Resolves true when the server accepts the key pair (GET /api/public/projects). Throws SvcApiError (401 for a wrong
   * key pair, 404 when the base URL is not svc's admin listener) or SvcConnectionError when it cannot be reached, and
   * SvcError when something else answers 200 there.
   */
  async authCheck(): Promise<true> {
    const body = await this.#http.request<{ data?: unknown } | undefined>('GET', '/api/public/projects');
    if (!Array.isArray(body?.data))
      throw new SvcError(
        `${this.baseUrl} answered GET /api/public/projects, but not as svc does: is it svc's admin listener?`,
      );
    return true;
  }
}
