// Prompts under /api/public/v2/prompts: get (by version or label, cached), create, update labels, and compile.
import { SvcError } from './errors.ts';
import type { HttpClient } from './http.ts';

export interface ChatMessage {
  role: string;
  content: string;
  type?: 'chatmessage';
}

/** A slot in a chat prompt that `compile` fills with a list of messages. */
export interface ChatPlaceholder {
  type: 'placeholder';
  name: string;
}

export type ChatEntry = ChatMessage | ChatPlaceholder;

export type PromptVariables = Record<string, unknown>;

/** A prompt version as the server answers it. */
interface PromptRecord {
  name: string;
  version: number;
  type: 'text' | 'chat';
  prompt: string | ChatEntry[];
  config: Record<string, unknown>;
  labels: string[];
  tags: string[];
  commitMessage: string | null;
}

const VARIABLE = /\{\{\s*([\w.-]+)\s*\}\}/g;

/** `{{name}}` replaced by the variable's value (strings as they are, other values as JSON); unknown names stay. */
function fill(template: string, variables: PromptVariables): string {
  return template.replace(VARIABLE, (whole, name: string) => {
    if (!Object.hasOwn(variables, name)) return whole;
    const value = variables[name];
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

abstract class BasePrompt {
  readonly name: string;
  readonly version: number;
  readonly config: Record<string, unknown>;
  readonly labels: string[];
  readonly tags: string[];
  readonly commitMessage: string | null;
  /** True when this is the `fallback` given to `prompts.get`, not a version from the server. */
  readonly isFallback: boolean;

  constructor(record: Omit<PromptRecord, 'type' | 'prompt'>, isFallback: boolean) {
    this.name = record.name;
    this.version = record.version;
    this.config = record.config ?? {};
    this.labels = record.labels ?? [];
    this.tags = record.tags ?? [];
    this.commitMessage = record.commitMessage ?? null;
    this.isFallback = isFallback;
  }
}

export class TextPrompt extends BasePrompt {
  readonly type = 'text' as const;
  readonly prompt: string;

  constructor(record: Omit<PromptRecord, 'type' | 'prompt'> & { prompt: string }, isFallback = false) {
    super(record, isFallback);
    this.prompt = record.prompt;
  }

  /** The text with each `{{variable}}` replaced; variables not given are left as written. */
  compile(variables: PromptVariables = {}): string {
    return fill(this.prompt, variables);
  }
}

export class ChatPrompt extends BasePrompt {
  readonly type = 'chat' as const;
  readonly prompt: ChatEntry[];

  constructor(record: Omit<PromptRecord, 'type' | 'prompt'> & { prompt: ChatEntry[] }, isFallback = false) {
    super(record, isFallback);
    this.prompt = record.prompt;
  }

  /**
   * The messages as `{role, content}` with each `{{variable}}` replaced, and each placeholder replaced by the messages
   * given for it in `placeholders`; a placeholder not given is left in place, as Langfuse does.
   */
  compile(
    variables: PromptVariables = {},
    placeholders: Record<string, ChatMessage[]> = {},
  ): Array<ChatMessage | ChatPlaceholder> {
    return this.prompt.flatMap((entry): Array<ChatMessage | ChatPlaceholder> => {
      if (entry.type === 'placeholder') {
        const given = Object.hasOwn(placeholders, entry.name) ? placeholders[entry.name] : undefined;
        return given === undefined
          ? [entry]
          : given.map((m) => ({ role: m.role, content: fill(m.content, variables) }));
      }
      return [{ role: entry.role, content: fill(entry.content, variables) }];
    });
  }
}

export type Prompt = TextPrompt | ChatPrompt;

function promptOf(record: PromptRecord, isFallback = false): Prompt {
  return typeof record.prompt === 'string'
    ? new TextPrompt({ ...record, prompt: record.prompt }, isFallback)
    : new ChatPrompt({ ...record, prompt: record.prompt }, isFallback);
}

export interface GetPromptOptions {
  /** A version number; not with `label`. */
  version?: number;
  /** A label; default `production` when no version is given. */
  label?: string;
  /** How long a fetched version is served from the cache; default: the client's `promptCacheTtlSeconds` (60). 0 fetches every time. */
  cacheTtlSeconds?: number;
  /** Served when the prompt cannot be fetched and no version of it was fetched before: a text, or chat messages. */
  fallback?: string | ChatEntry[];
  /** The type the prompt must have: the answer is then a `TextPrompt` or `ChatPrompt`, and a version of the other type throws `SvcError`. */
  type?: 'text' | 'chat';
}

export interface CreatePromptBody {
  name: string;
  /** A text, or chat messages and placeholders. */
  prompt: string | ChatEntry[];
  /** Default: `chat` for an array, else `text`. */
  type?: 'text' | 'chat';
  config?: Record<string, unknown>;
  /** Labels for the new version, e.g. `['production']`; `latest` is kept by the server. */
  labels?: string[];
  tags?: string[];
  commitMessage?: string;
}

interface CacheEntry {
  prompt: Prompt;
  /** When it was fetched (ms); the TTL of each get is measured from here. */
  fetchedAt: number;
}

export class PromptsClient {
  readonly #http: HttpClient;
  readonly #defaultTtlSeconds: number;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #inFlight = new Map<string, Promise<Prompt>>();

  constructor(http: HttpClient, defaultTtlSeconds: number) {
    this.#http = http;
    this.#defaultTtlSeconds = defaultTtlSeconds;
  }

  /**
   * One version of a prompt: by `version`, else by `label` (default `production`). A fetched version is cached for
   * `cacheTtlSeconds`; when a later fetch fails (server unreachable, or any error), the last version fetched is
   * served, and when there is none, `fallback` (with `isFallback` true). Without either, the error is thrown.
   */
  async get(name: string, options: GetPromptOptions & { type: 'text'; fallback?: string }): Promise<TextPrompt>;
  async get(name: string, options: GetPromptOptions & { type: 'chat'; fallback?: ChatEntry[] }): Promise<ChatPrompt>;
  async get(name: string, options?: GetPromptOptions): Promise<Prompt>;
  async get(name: string, options: GetPromptOptions = {}): Promise<Prompt> {
    const prompt = await this.#getAnyType(name, options);
    if (options.type !== undefined && prompt.type !== options.type)
      throw new SvcError(`prompt "${name}" version ${prompt.version} is a ${prompt.type} prompt, not ${options.type}`);
    return prompt;
  }

  async #getAnyType(name: string, options: GetPromptOptions): Promise<Prompt> {
    if (options.version !== undefined && options.label !== undefined)
      throw new SvcError('prompts.get: give a version or a label, not both');
    const selector =
      options.version !== undefined ? { version: options.version } : { label: options.label ?? 'production' };
    const key = `${name}\u0000${'version' in selector ? `v${selector.version}` : `l${selector.label}`}`;
    const ttlMs = (options.cacheTtlSeconds ?? this.#defaultTtlSeconds) * 1000;
    const cached = this.#cache.get(key);
    if (cached && Date.now() < cached.fetchedAt + ttlMs) return cached.prompt;
    try {
      const prompt = await this.#fetchOnce(key, name, selector);
      this.#cache.set(key, { prompt, fetchedAt: Date.now() });
      return prompt;
    } catch (err) {
      if (cached) return cached.prompt;
      if (options.fallback !== undefined) {
        return promptOf(
          {
            name,
            version: 0,
            type: typeof options.fallback === 'string' ? 'text' : 'chat',
            prompt: options.fallback,
            config: {},
            labels: [],
            tags: [],
            commitMessage: null,
          },
          true,
        );
      }
      throw err;
    }
  }

  /** Creates a new version of the prompt `name` (version 1 for a new name). */
  async create(body: CreatePromptBody): Promise<Prompt> {
    const type = body.type ?? (Array.isArray(body.prompt) ? 'chat' : 'text');
    const record = await this.#http.request<PromptRecord>('POST', '/api/public/v2/prompts', {
      body: { ...body, type },
    });
    this.#expire(body.name);
    return promptOf(record);
  }

  /** Adds labels to a version; a label moves there from any other version that had it. */
  async updateLabels(name: string, version: number, newLabels: string[]): Promise<Prompt> {
    const record = await this.#http.request<PromptRecord>(
      'PATCH',
      `/api/public/v2/prompts/${encodeURIComponent(name)}/versions/${version}`,
      { body: { newLabels } },
    );
    this.#expire(name);
    return promptOf(record);
  }

  /** One request per key at a time: concurrent gets of the same version share it. */
  #fetchOnce(key: string, name: string, selector: { version: number } | { label: string }): Promise<Prompt> {
    const pending = this.#inFlight.get(key);
    if (pending) return pending;
    const request = this.#http
      .request<PromptRecord>('GET', `/api/public/v2/prompts/${encodeURIComponent(name)}`, { query: selector })
      .then((record) => promptOf(record))
      .finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, request);
    return request;
  }

  /** After a change, the name's cached versions are fetched again on next use (and kept for outages meanwhile). */
  #expire(name: string): void {
    for (const [key, entry] of this.#cache)
      if (key.startsWith(`${name}\u0000`)) entry.fetchedAt = Number.NEGATIVE_INFINITY;
  }
}
