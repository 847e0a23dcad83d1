// Writes rows off the request path (docs/architecture.md "Off the request path"): a bounded in-memory queue drained in
// batched multi-row inserts. What the queue holds is also journaled to disk every `journalMs` (write-journal.ts), so a
// process killed outright loses at most that interval of items. As soon as a write fails for the database being
// unreachable, the queue moves to an append-only spill file under data_dir, and so does every new item until a write
// succeeds again; items past the queue's capacity are spilled too. Spill files are replayed once the database answers.
// Writers must make inserts idempotent (skip rows already stored), so a batch written twice (a retry after a lost
// reply, a replay) stores once. A batch the database refuses for its content (not for being unreachable) is split until
// the refused item is found; that one is dropped and logged, so one bad row never blocks the rest. Used for traces
// (tracing/trace-writer.ts) and budget spend (budget/spend-ledger.ts).
import type { Logger } from '../telemetry/logger.ts';
import { SpillDirectory } from './spill-directory.ts';
import { WriteJournal } from './write-journal.ts';

export interface DurableWriterOptions<T> {
  /** What one item is, in log lines ("trace"). */
  noun: string;
  /** Stores a batch in one statement; must skip items already stored. */
  write(batch: readonly T[]): Promise<void>;
  /** Fields naming an item in the log line of a dropped one. */
  describe(item: T): Record<string, unknown>;
  /** The item's journal line: its JSON text (replay parses it back). JSON.stringify unless the writer keeps it made. */
  line?(item: T): string;
  spillDir: string;
  log: Logger;
  /** Items held in memory before spilling to disk. */
  capacity?: number;
  batchSize?: number;
  /** Longest wait before a partial batch is written. */
  flushMs?: number;
  /** How often queued and spilled items are written to disk: what a killed process can lose at most. */
  journalMs?: number;
  maxBackoffMs?: number;
}

export interface DurableWriterStats {
  queue_depth: number;
  queue_capacity: number;
  batches_written: number;
  written: number;
  write_failures: number;
  spilled: number;
  replayed: number;
  dropped: number;
  spill_files: number;
  database: 'ok' | 'failing';
}

/** SQLSTATE classes that blame the rows, not the connection: data exception, integrity violation, program limit. */
function rowsRefused(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
}

export class DurableWriter<T> {
  readonly #options: DurableWriterOptions<T>;
  readonly #log: Logger;
  readonly #capacity: number;
  readonly #batchSize: number;
  readonly #flushMs: number;
  readonly #journalMs: number;
  readonly #maxBackoffMs: number;
  readonly #spill: SpillDirectory<T>;
  readonly #journal: WriteJournal;
  readonly #line: (item: T) => string;
  /** Oldest first: `#unjournaled` items whose journal was lost (a failed journal write), then journaled ones, then `#pending` ones not journaled yet. */
  #queue: T[] = [];
  #unjournaled = 0;
  #pending = 0;
  #wake: (() => void) | undefined;
  #ticker: NodeJS.Timeout | undefined;
  #stopping = false;
  #stopped = false;
  #failures = 0;
  #loop: Promise<void> | undefined;
  readonly stats = { batches_written: 0, written: 0, write_failures: 0, spilled: 0, replayed: 0, dropped: 0 };

  constructor(options: DurableWriterOptions<T>) {
    this.#options = options;
    this.#log = options.log;
    this.#capacity = options.capacity ?? 10_000;
    this.#batchSize = options.batchSize ?? 500;
    this.#flushMs = options.flushMs ?? 50;
    this.#journalMs = options.journalMs ?? 50;
    this.#maxBackoffMs = options.maxBackoffMs ?? 5_000;
    this.#line = options.line ?? ((item) => JSON.stringify(item));
    this.#spill = new SpillDirectory<T>(options.spillDir, (err, items) => {
      this.stats.dropped += items;
      this.#log.error(`${options.noun} spill write failed; ${items} ${options.noun}(s) dropped`, {
        error: err.message,
      });
    });
    this.#journal = new WriteJournal(options.spillDir, (err) => {
      this.#log.error(
        `${options.noun} journal write failed; queued items are kept in memory only until it works again`,
        { error: err.message },
      );
    });
  }

  start(): void {
    this.#loop ??= this.#run();
    this.#ticker ??= setInterval(() => this.#toDisk(), this.#journalMs).unref();
  }

  enqueue(item: T): void {
    // While the database fails, items go to disk at once rather than waiting in memory for it.
    if (this.#stopping || this.#failures > 0 || this.#queue.length >= this.#capacity) {
      this.stats.spilled++;
      this.#spill.append(item);
      // After stop() nothing flushes or closes the file any more: close it now so the next start can replay it.
      if (this.#stopped) this.#closeSpill();
      return;
    }
    this.#queue.push(item);
    this.#pending++;
    // A full batch cuts the flush wait short.
    if (this.#queue.length >= this.#batchSize) this.#wake?.();
  }

  snapshot(): DurableWriterStats {
    return {
      queue_depth: this.#queue.length,
      queue_capacity: this.#capacity,
      ...this.stats,
      spill_files: this.#spill.fileCount(),
      database: this.#failures > 0 ? 'failing' : 'ok',
    };
  }

  /** Writes what is queued (up to `deadlineMs`), spills the rest, and stops. */
  async stop(deadlineMs = 5_000): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    while (this.#queue.length > 0 && this.#failures === 0 && Date.now() < deadline) {
      this.#wake?.();
      await new Promise((r) => setTimeout(r, 10));
    }
    this.#stopping = true;
    clearInterval(this.#ticker);
    this.#wake?.();
    await this.#loop;
    this.#spillQueue();
    this.#stopped = true;
    this.#closeSpill();
  }

  /** Journals the items queued since the last time, and writes the spill file's new lines. */
  #toDisk(): void {
    if (this.#pending > 0) {
      const fresh = this.#queue.slice(this.#queue.length - this.#pending);
      if (this.#journal.append(`${fresh.map(this.#line).join('\n')}\n`, fresh.length)) this.#pending = 0;
      else {
        // Journaling failed (a full disk): keep the items in memory only, and start the journal afresh.
        this.#journal.discard();
        this.#unjournaled = this.#queue.length;
        this.#pending = 0;
      }
    }
    this.#spill.flush();
  }

  /** Moves every queued item to the spill file (on disk before the journal that held them is deleted). */
  #spillQueue(): void {
    for (const item of this.#queue.splice(0)) {
      this.stats.spilled++;
      this.#spill.append(item);
    }
    this.#spill.flush();
    this.#journal.discard();
    this.#unjournaled = 0;
    this.#pending = 0;
  }

  #closeSpill(): void {
    try {
      this.#spill.close();
    } catch (err) {
      this.#log.error(`${this.#options.noun} spill close failed`, { error: (err as Error).message });
    }
  }

  /** The first `count` queued items are stored: off the queue, and checkpointed in the journal. */
  #dequeue(count: number): void {
    const journaled = this.#queue.length - this.#unjournaled - this.#pending;
    const fromUnjournaled = Math.min(count, this.#unjournaled);
    const fromJournal = Math.min(count - fromUnjournaled, journaled);
    this.#queue.splice(0, count);
    this.#unjournaled -= fromUnjournaled;
    this.#pending -= count - fromUnjournaled - fromJournal;
    this.#journal.stored(fromJournal);
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      if (this.#queue.length === 0 && !this.#spill.hasReplayable()) {
        await this.#sleep(this.#flushMs * 4);
        continue;
      }
      if (this.#queue.length < this.#batchSize && this.#queue.length > 0) await this.#sleep(this.#flushMs);
      const batch = this.#queue.slice(0, this.#batchSize);
      try {
        if (batch.length > 0) {
          const stored = await this.#write(batch);
          this.#dequeue(batch.length);
          this.stats.batches_written++;
          this.stats.written += stored;
          this.#reachable();
        }
        // Only a write that succeeded ends a failure streak: with an empty queue and spill files left while the
        // database is down, the replay is the only attempt and its backoff must keep growing.
        if (this.#spill.hasReplayable() && !this.#stopping) await this.#replay();
      } catch (err) {
        this.#failures++;
        this.stats.write_failures++;
        if (this.#failures === 1) {
          this.#log.warn(`${this.#options.noun} write failed; spilling to disk and retrying with backoff`, {
            error: (err as Error).message,
            queued: this.#queue.length,
          });
          this.#spillQueue();
        }
        const backoff = Math.min(this.#maxBackoffMs, 100 * 2 ** Math.min(this.#failures - 1, 10));
        await this.#sleep(backoff / 2 + Math.random() * (backoff / 2));
      }
    }
  }

  /** Replays spill files in batches; a failure leaves the rest of the file for the next try (rows stored skip). */
  async #replay(): Promise<void> {
    await this.#spill.replay(this.#batchSize, async (items) => {
      const stored = await this.#write(items);
      this.stats.replayed += stored;
      this.stats.written += stored;
      this.stats.batches_written++;
      this.#reachable();
    });
  }

  #reachable(): void {
    if (this.#failures > 0)
      this.#log.info(`${this.#options.noun} store reachable again`, { after_failures: this.#failures });
    this.#failures = 0;
  }

  /** Stores the batch; returns how many items were stored (the others were refused by the database and dropped). */
  async #write(batch: readonly T[]): Promise<number> {
    try {
      await this.#options.write(batch);
      return batch.length;
    } catch (err) {
      if (!rowsRefused(err)) throw err;
      if (batch.length === 1) {
        this.stats.dropped++;
        this.#log.error(`the database refused a ${this.#options.noun}; dropped`, {
          ...this.#options.describe(batch[0]),
          error: (err as Error).message,
        });
        return 0;
      }
      const half = Math.ceil(batch.length / 2);
      return (await this.#write(batch.slice(0, half))) + (await this.#write(batch.slice(half)));
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = undefined;
        done();
      };
    });
  }
}
