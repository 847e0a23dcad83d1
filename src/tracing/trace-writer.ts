// The trace writer: gateway and API traces written off the request path by a durable writer (store/durable-writer.ts).
import type { Database } from '../store/database.ts';
import { DurableWriter, type DurableWriterOptions, type DurableWriterStats } from '../store/durable-writer.ts';
import { insertTraceBatch, type ObservationRow, type TraceRow } from '../store/repos/traces.ts';

export interface TraceItem {
  trace: TraceRow;
  observations: ObservationRow[];
}

/** Where plugins hand finished traces; never blocks, never throws. */
export interface TraceSink {
  enqueue(item: TraceItem): void;
}

export type TraceWriterOptions = Pick<DurableWriterOptions<TraceItem>, 'spillDir' | 'log' | 'capacity' | 'batchSize' | 'flushMs' | 'maxBackoffMs'>;

/** The writer's numbers as /metrics shows them under telemetry.traces. */
export type TraceWriterStats = Omit<DurableWriterStats, 'written'> & { traces_written: number };

export class TraceWriter implements TraceSink {
  readonly #writer: DurableWriter<TraceItem>;

  constructor(db: Database, options: TraceWriterOptions) {
    this.#writer = new DurableWriter<TraceItem>({
      ...options,
      noun: 'trace',
      // One statement, not a transaction: all or nothing in one round trip, and no pooled connection held between
      // statements (a connection lost while checked out of the pg pool is an unhandled 'error' event).
      write: async (batch) => {
        await insertTraceBatch(db, batch.map((b) => b.trace), batch.flatMap((b) => b.observations));
      },
      describe: (item) => ({ traceId: item.trace.id, projectId: item.trace.projectId }),
    });
  }

  start(): void {
    this.#writer.start();
  }

  enqueue(item: TraceItem): void {
    this.#writer.enqueue(item);
  }

  /** Writes what is queued (up to `deadlineMs`), spills the rest, and stops. */
  stop(deadlineMs?: number): Promise<void> {
    return this.#writer.stop(deadlineMs);
  }

  snapshot(): TraceWriterStats {
    const { written, ...rest } = this.#writer.snapshot();
    return { ...rest, traces_written: written };
  }
}
