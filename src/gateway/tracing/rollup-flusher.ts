// Keeps the rollups of the traces the trace writer stored, in memory, and adds them to the store about once a second
// in one statement: the trace writer's batches stay one statement each, and the rollups cost one more statement a
// second however many batches went by. A flush that fails is retried as it was (same id, same rows) until it is
// applied; its id makes a retry after a lost reply harmless. Rollups not yet flushed are lost if the process dies,
// like the traces still queued in memory.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../platform/store/database.ts';
import type { Logger } from '../../platform/telemetry/logger.ts';
import { pruneFlushes, upsertRollups, type RollupRow } from '../../platform/store/repos/metric-rollups.ts';
import { RollupAccumulator } from './rollup-accumulator.ts';
import type { TraceItem } from './trace-item.ts';

const DAY_MS = 86_400_000;

export interface RollupFlusherOptions {
  log: Logger;
  intervalMs?: number;
}

export class RollupFlusher {
  readonly #db: Queryable;
  readonly #log: Logger;
  readonly #intervalMs: number;
  #pending = new RollupAccumulator();
  #inflight: { id: string; rows: RollupRow[] } | undefined;
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #failures = 0;
  #lastPrune = 0;

  constructor(db: Queryable, options: RollupFlusherOptions) {
    this.#db = db;
    this.#log = options.log;
    this.#intervalMs = options.intervalMs ?? 1000;
  }

  /** Traces just stored (each once). */
  add(items: readonly TraceItem[]): void {
    for (const item of items) this.#pending.add(item);
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), this.#intervalMs).unref();
  }

  /** Applies what is pending; resolves when done or failed (a failure is kept for the next flush). */
  flush(): Promise<void> {
    this.#flushing ??= this.#flushOnce().finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  /** Stops the timer, waits for a flush under way, and makes one last attempt. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#flushing;
    await this.flush();
    if (this.#inflight || this.#pending.size > 0)
      this.#log.error('metric rollups not written at stop; the dashboard charts will miss them', {
        rows: (this.#inflight?.rows.length ?? 0) + this.#pending.size,
      });
  }

  async #flushOnce(): Promise<void> {
    if (!this.#inflight) {
      if (this.#pending.size === 0) return;
      this.#inflight = { id: randomUUID(), rows: this.#pending.rows() };
      this.#pending = new RollupAccumulator();
    }
    try {
      await upsertRollups(this.#db, this.#inflight.rows, this.#inflight.id);
      this.#inflight = undefined;
      if (this.#failures > 0) this.#log.info('metric rollups written again', { after_failures: this.#failures });
      this.#failures = 0;
      const now = Date.now();
      if (now - this.#lastPrune > 3_600_000) {
        this.#lastPrune = now;
        // Retries come within minutes; ids kept a day are plenty. A failed prune waits for the next hour.
        await pruneFlushes(this.#db, DAY_MS, now).catch(() => {});
      }
    } catch (err) {
      if (this.#failures++ === 0)
        this.#log.warn('metric rollups write failed; retrying', { error: (err as Error).message });
    }
  }
}
