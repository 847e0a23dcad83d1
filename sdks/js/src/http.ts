// JSON requests to /api/public with Basic auth: a timeout per attempt (a timeout is not retried), and retries with
// exponential backoff on 429, 5xx and connection failures, honouring `retry-after`.
import { SvcApiError, SvcConnectionError, SvcTimeoutError } from './errors.ts';
import type { Connection } from './config.ts';

export interface HttpSettings {
  connection: Connection;
  /** Per attempt, in milliseconds. */
  timeoutMs: number;
  /** Attempts after the first. */
  maxRetries: number;
  fetch: typeof fetch;
}

export type Query = Record<string, string | number | undefined>;

const USER_AGENT = 'svc-sdk-js/0.1.0';
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;
/** A `retry-after` longer than this is not waited for: the error is thrown at once. */
const RETRY_AFTER_MAX_MS = 60_000;

type Attempt = { response: Response; body: unknown } | { failure: SvcConnectionError };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `retry-after` as seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The server's message: `message`, else a string `error`, with validation issues appended; else the text. */
function serverMessage(body: unknown, response: Response): { message: string; error: string | undefined } {
  if (body !== null && typeof body === 'object') {
    const b = body as { message?: unknown; error?: unknown };
    const issues = Array.isArray(b.error)
      ? b.error
          .map(
            (i: { path?: unknown[]; message?: unknown }) =>
              `${(i.path ?? []).join('.') || '(body)'}: ${String(i.message)}`,
          )
          .join('; ')
      : undefined;
    const nested =
      b.error !== null && typeof b.error === 'object' ? (b.error as { message?: unknown }).message : undefined;
    const message =
      typeof b.message === 'string'
        ? b.message
        : typeof b.error === 'string'
          ? b.error
          : typeof nested === 'string'
            ? nested
            : undefined;
    if (message !== undefined)
      return {
        message: issues ? `${message}: ${issues}` : message,
        error: typeof b.error === 'string' ? b.error : undefined,
      };
  }
  if (typeof body === 'string' && body.trim() !== '') return { message: body.slice(0, 500), error: undefined };
  return { message: response.statusText || 'no message', error: undefined };
}

const isRetryableStatus = (status: number) => status === 429 || status >= 500;

export class HttpClient {
  readonly #settings: HttpSettings;

  constructor(settings: HttpSettings) {
    this.#settings = settings;
  }

  async request<T>(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<T> {
    const { connection, maxRetries } = this.#settings;
    const url = new URL(`${connection.baseUrl}${path}`);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    for (let attempt = 0; ; attempt++) {
      const result = await this.#attempt(method, url, options.body);
      if ('response' in result && result.response.ok) return result.body as T;
      const error =
        'failure' in result
          ? result.failure
          : new SvcApiError({
              status: result.response.status,
              ...serverMessage(result.body, result.response),
              body: result.body,
              method,
              path,
            });
      // A server silent for the whole timeout is stuck: retrying would multiply the caller's wait.
      const retryable =
        'failure' in result ? !(result.failure instanceof SvcTimeoutError) : isRetryableStatus(result.response.status);
      if (!retryable || attempt >= maxRetries) throw error;
      const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt) * (0.8 + Math.random() * 0.4);
      const asked = 'response' in result ? retryAfterMs(result.response.headers.get('retry-after')) : undefined;
      if (asked !== undefined && asked > RETRY_AFTER_MAX_MS) throw error;
      await sleep(asked ?? backoff);
    }
  }

  async #attempt(method: string, url: URL, body: unknown): Promise<Attempt> {
    const { connection, timeoutMs } = this.#settings;
    const headers: Record<string, string> = {
      authorization: connection.authorization,
      accept: 'application/json',
      'user-agent': USER_AGENT,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const response = await this.#settings.fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.text();
      let parsed: unknown = text === '' ? undefined : text;
      try {
        if (text !== '') parsed = JSON.parse(text);
      } catch {
        // not JSON: kept as text for the error message
      }
      return { response, body: parsed };
    } catch (err) {
      const where = `${method} ${url.origin}${url.pathname}`;
      if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
        return { failure: new SvcTimeoutError(`${where}: no answer within ${timeoutMs} ms`, { cause: err }) };
      }
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
      const reason = (cause as { code?: unknown })?.code ?? (cause instanceof Error ? cause.message : String(cause));
      return {
        failure: new SvcConnectionError(`${where}: could not reach the server (${String(reason)})`, { cause: err }),
      };
    }
  }
}
