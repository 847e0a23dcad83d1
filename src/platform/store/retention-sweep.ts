// Data retention (a project's `retention` days, set through the organization API): each process deletes the traces
// of such projects that started longer ago than that, with their observations and scores, once an hour, in
// batches so no transaction grows large. Replicas sweeping at once delete disjoint or already-deleted rows.
import type { Database } from './database.ts';
import { projectsWithRetention } from './repos/projects.ts';
import { deleteTracesBefore } from './repos/traces.ts';
import type { Logger } from '../telemetry/logger.ts';

const SWEEP_EVERY_MS = 3_600_000;
const BATCH = 1_000;
const DAY_MS = 86_400_000;

export class RetentionSweep {
  readonly #db: Database;
  readonly #log: Logger;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;

  constructor(db: Database, log: Logger, now: () => number) {
    this.#db = db;
    this.#log = log;
    this.#now = now;
  }

  start(): void {
    const tick = () =>
      void this.runOnce().catch((err: unknown) =>
        this.#log.warn('retention sweep failed; retried within the hour', { error: (err as Error).message }),
      );
    tick();
    this.#timer = setInterval(tick, SWEEP_EVERY_MS).unref();
  }

  /** Deletes every expired trace now; returns how many (one sweep at a time: a second call joins the first). */
  runOnce(): Promise<number> {
    this.#running ??= this.#sweep().finally(() => (this.#running = undefined));
    return this.#running;
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running?.catch(() => undefined);
  }

  async #sweep(): Promise<number> {
    let deleted = 0;
    for (const { id, retentionDays } of await projectsWithRetention(this.#db)) {
      const before = new Date(this.#now() - retentionDays * DAY_MS);
      for (;;) {
        const n = await deleteTracesBefore(this.#db, id, before, BATCH);
        deleted += n;
        if (n < BATCH) break;
      }
    }
    if (deleted > 0) this.#log.info('retention sweep deleted expired traces', { traces: deleted });
    return deleted;
  }
}
