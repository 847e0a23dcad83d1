// Makes the store ready to serve: its migrations, the configuration's organization, projects and agents, the
// dashboard's first owner, the first read of the gateway keys. A store that cannot be reached at start (PostgreSQL
// down) does not stop the process: it starts not ready and prepares the store by itself once it answers, retrying
// every STORE_RETRY_MS (docs/operations.md "A process started while the store is down").
import { storeUnreachable } from '../platform/store/store-unreachable.ts';
import type { Logger } from '../platform/telemetry/logger.ts';

const STORE_RETRY_MS = 1_000;

export class StorePreparation<T> {
  readonly #prepare: () => Promise<T>;
  readonly #log: Logger;
  #prepared = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #attempt: Promise<unknown> | undefined;
  #lastError: string | undefined;
  #resolve!: (value: T) => void;
  /** Resolves with what the preparation returned, once the store is prepared (never, when stopped before). */
  readonly ready: Promise<T>;

  constructor(prepare: () => Promise<T>, log: Logger) {
    this.#prepare = prepare;
    this.#log = log;
    this.ready = new Promise((resolve) => (this.#resolve = resolve));
  }

  get prepared(): boolean {
    return this.#prepared;
  }

  /** Prepares the store now; one that cannot be reached is prepared later, by itself. Any other failure throws. */
  async start(): Promise<void> {
    try {
      this.#done(await this.#run());
    } catch (err) {
      if (!storeUnreachable(err)) throw err;
      this.#log.warn('the store cannot be reached; starting not ready, retrying until it answers', {
        error: (err as Error).message,
        retryMs: STORE_RETRY_MS,
      });
      this.#lastError = (err as Error).message;
      this.#schedule();
    }
  }

  /** Stops retrying; an attempt under way is waited for, so nothing it starts outlives the stop unnoticed. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#attempt?.catch(() => undefined);
  }

  #run(): Promise<T> {
    const attempt = this.#prepare();
    this.#attempt = attempt;
    return attempt;
  }

  #schedule(): void {
    if (!this.#stopped) this.#timer = setTimeout(() => void this.#retry(), STORE_RETRY_MS).unref();
  }

  async #retry(): Promise<void> {
    let value: T;
    try {
      value = await this.#run();
    } catch (err) {
      const message = (err as Error).message;
      // A store that answers but cannot be prepared (a failing migration) is an operator's problem: said once per cause.
      if (!storeUnreachable(err) && message !== this.#lastError)
        this.#log.error('the store answered but could not be prepared; retrying', { error: message });
      this.#lastError = message;
      this.#schedule();
      return;
    }
    if (this.#stopped) return;
    this.#log.info('store reached: migrations applied and its state loaded; ready');
    this.#done(value);
  }

  #done(value: T): void {
    this.#prepared = true;
    this.#resolve(value);
  }
}
