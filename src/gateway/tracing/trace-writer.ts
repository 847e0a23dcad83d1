// The trace writer: gateway and API traces written off the request path by a durable writer (store/durable-writer.ts);
// the gateway traces it stores are summed into the dashboard's metric rollups (rollup-flusher.ts).
import { RollupFlusher } from './rollup-flusher.ts';
import type { Database } from '../../platform/store/database.ts';
import {
  DurableWriter,
  type DurableWriterOptions,
  type DurableWriterStats,
} from '../../platform/store/durable-writer.ts';
import type { TraceItem } from './trace-item.ts';
import { journalLine } from './trace-text.ts';
import { writeTraceBatch } from './write-trace-batch.ts';

/** Where plugins hand finished traces; never blocks, never throws. */
export interface TraceSink {
  enqueue(item: TraceItem): void;
}

export type TraceWriterOptions = Pick<
  DurableWriterOptions<TraceItem>,
  'spillDir' | 'log' | 'capacity' | 'batchSize' | 'flushMs' | 'journalMs' | 'maxBackoffMs'
>;

/** The writer's numbers as /metrics shows them under telemetry.traces. */
export type TraceWriterStats = Omit<DurableWriterStats, 'written'> & { traces_written: number };

export class TraceWriter implements TraceSink {
  readonly #writer: DurableWriter<TraceItem>;
  readonly #rollups: RollupFlusher;

  constructor(db: Database, options: TraceWriterOptions) {
    const rollups = new RollupFlusher(db, { log: options.log });
    this.#rollups = rollups;
    this.#writer = new DurableWriter<TraceItem>({
      ...options,
      noun: 'trace',
      write: (batch) => writeTraceBatch(db, batch, rollups),
      describe: (item) => ({ traceId: item.trace.id, projectId: item.trace.projectId }),
      line: journalLine,
    });
  }

  start(): void {
    this.#writer.start();
    this.#rollups.start();
  }

  enqueue(item: TraceItem): void {
    this.#writer.enqueue(item);
  }

  /** Writes what is queued (up to `deadlineMs`), spills the rest, writes the rollups, and stops. */
  async stop(deadlineMs?: number): Promise<void> {
    await this.#writer.stop(deadlineMs);
    await this.#rollups.stop();
  }

  /** Writes the rollups of the traces stored so far now, rather than within the second. */
  flushRollups(): Promise<void> {
    return this.#rollups.flush();
  }

  snapshot(): TraceWriterStats {
    const { written, ...rest } = this.#writer.snapshot();
    return { ...rest, traces_written: written };
  }
}
