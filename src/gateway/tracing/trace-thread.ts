// The trace writer as the serving thread sees it: traces handed to `enqueue` are gathered for the rest of the
// event-loop turn and posted to the trace writer's own thread (trace-thread-worker.ts) in one message, which is all
// the request path pays. Stopping, flushing the rollups and the writer's numbers for /metrics go through messages.
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { Logger } from '../../platform/telemetry/logger.ts';
import { TurnBatch } from '../../platform/workers/turn-batch.ts';
import { moduleBeside } from '../../platform/workers/module-beside.ts';
import type { TraceItem } from './trace-item.ts';
import type { FromTraceThread, ToTraceThread, TraceThreadData } from './trace-thread-worker.ts';
import type { TraceSink, TraceWriterStats } from './trace-writer.ts';

const WORKER_ENTRY = moduleBeside(import.meta.url, './trace-thread-worker');

export class TraceThread implements TraceSink {
  readonly #worker: Worker;
  readonly #log: Logger;
  readonly #capacity: number;
  // The traces of every request that ends in one turn of the event loop go in one message.
  readonly #batch = new TurnBatch<TraceItem>((items) => {
    this.#posted += items.length;
    this.#send({ type: 'items', items });
  });
  #stats: TraceWriterStats;
  /** Traces posted to the thread, and how many of them it said it had taken when it last sent its numbers. */
  #posted = 0;
  #received = 0;
  #nextId = 1;
  readonly #waiting = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  #exited = false;
  /** Resolves when the thread has sent its first numbers (its spill files counted), rejects when it failed first. */
  readonly started: Promise<void>;
  #start!: { resolve: () => void; reject: (err: Error) => void };

  constructor(data: TraceThreadData, log: Logger) {
    this.#log = log;
    this.#capacity = data.capacity ?? 10_000;
    this.#stats = {
      queue_depth: 0,
      queue_capacity: this.#capacity,
      batches_written: 0,
      traces_written: 0,
      write_failures: 0,
      spilled: 0,
      replayed: 0,
      dropped: 0,
      spill_files: 0,
      database: 'ok',
    };
    this.started = new Promise((resolve, reject) => (this.#start = { resolve, reject }));
    const transfer = data.store.kind === 'pglite' ? [data.store.port] : [];
    this.#worker = new Worker(WORKER_ENTRY, { workerData: data, transferList: transfer });
    this.#worker.on('message', (m: FromTraceThread) => this.#receive(m));
    this.#worker.on('error', (err) => {
      log.error('the trace writer thread failed', { error: err.stack });
      this.#start.reject(err);
    });
    this.#worker.on('exit', () => {
      this.#exited = true;
      this.#start.reject(new Error('the trace writer thread stopped'));
      for (const w of this.#waiting.values()) w.reject(new Error('the trace writer thread stopped'));
      this.#waiting.clear();
    });
  }

  enqueue(item: TraceItem): void {
    this.#batch.add(item);
  }

  /** The store is prepared: the thread's writes may start. */
  prepared(): void {
    this.#send({ type: 'prepared' });
  }

  /** A port another serving thread posts its traces on (trace-port-sink.ts); the thread's writer takes them. */
  connect(): MessagePort {
    const { port1, port2 } = new MessageChannel();
    this.#worker.postMessage({ type: 'port', port: port2 } satisfies ToTraceThread, [port2]);
    return port1;
  }

  /** Writes the rollups of the traces stored so far now, rather than within the second. */
  flushRollups(): Promise<void> {
    this.#batch.flush();
    return this.#ask((id) => ({ type: 'flush-rollups', id }));
  }

  /** Writes what is queued (up to `deadlineMs`), spills the rest, writes the rollups, and ends the thread. */
  async stop(deadlineMs?: number): Promise<void> {
    this.#batch.flush();
    if (this.#exited) return;
    await this.#ask((id) => ({ type: 'stop', id, deadlineMs })).catch((err: Error) =>
      this.#log.error('the trace writer did not stop cleanly', { error: err.message }),
    );
    await this.#worker.terminate();
  }

  /** The writer's numbers as the thread last sent them (at most 250 ms ago). */
  snapshot(): TraceWriterStats {
    return this.#stats;
  }

  /** Traces handed over that the thread's writer had not taken when it last sent its numbers. */
  inFlight(): number {
    return this.#posted - this.#received + this.#batch.length;
  }

  #send(message: ToTraceThread): void {
    if (!this.#exited) this.#worker.postMessage(message);
  }

  #ask(message: (id: number) => ToTraceThread): Promise<void> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.#send(message(id));
    });
  }

  #receive(m: FromTraceThread): void {
    switch (m.type) {
      case 'stats':
        this.#stats = m.stats;
        this.#received = m.received;
        this.#start.resolve();
        return;
      case 'log':
        this.#log[m.level](m.message, m.fields);
        return;
      case 'done': {
        const waiting = this.#waiting.get(m.id);
        this.#waiting.delete(m.id);
        if (m.error === undefined) waiting?.resolve();
        else waiting?.reject(new Error(m.error));
      }
    }
  }
}
