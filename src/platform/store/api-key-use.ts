// `lastUsedAt` of API keys: recorded when a key authenticates, at most once a minute per key and process, off the
// request's path (a failed write is logged, never the request's failure). Readers see it to the minute.
import type { Database } from './database.ts';
import { recordApiKeyUse } from './repos/api-keys.ts';
import type { Logger } from '../telemetry/logger.ts';

const RESOLUTION_MS = 60_000;
/** Keys remembered at most; past it the oldest are forgotten (they may then be written once more). */
const MAX_REMEMBERED = 10_000;

class ApiKeyUseRecorder {
  readonly #written = new Map<string, number>();
  readonly #db: Database;
  readonly #log: Logger;

  constructor(db: Database, log: Logger) {
    this.#db = db;
    this.#log = log;
  }

  /** Notes a use of key `id` at `now` (epoch ms); writes when the last write for it is a minute old or more. */
  used(id: string, now: number): void {
    const last = this.#written.get(id);
    if (last !== undefined && now - last < RESOLUTION_MS) return;
    this.#written.delete(id);
    this.#written.set(id, now);
    if (this.#written.size > MAX_REMEMBERED) this.#written.delete(this.#written.keys().next().value!);
    recordApiKeyUse(this.#db, id, new Date(now)).catch((err: unknown) =>
      this.#log.warn('could not record the last use of an API key', {
        apiKeyId: id,
        error: err instanceof Error ? err.message : String(err),
      }),
    );
  }
}

/** One recorder per store, so every route that authenticates shares the once-a-minute memory. */
const recorders = new WeakMap<Database, ApiKeyUseRecorder>();

export function noteApiKeyUse(db: Database, log: Logger, id: string, now: number): void {
  let recorder = recorders.get(db);
  if (!recorder) recorders.set(db, (recorder = new ApiKeyUseRecorder(db, log)));
  recorder.used(id, now);
}
