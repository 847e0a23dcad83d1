// The trace writer as a gateway thread sees it (runtime/gateway-threads.ts): like trace-thread.ts on the main thread,
// the traces of one event-loop turn go in one message, here over a port the trace writer's thread listens on.
import type { MessagePort } from 'node:worker_threads';
import { TurnBatch } from '../../platform/workers/turn-batch.ts';
import type { TraceItem } from './trace-item.ts';
import type { FromTracePort, ToTracePort } from './trace-thread-worker.ts';
import type { TraceSink } from './trace-writer.ts';

export class TracePortSink implements TraceSink {
  readonly #port: MessagePort;
  readonly #batch = new TurnBatch<TraceItem>((items) => this.#send({ type: 'items', items }));
  #nextId = 1;
  readonly #waiting = new Map<number, () => void>();

  constructor(port: MessagePort) {
    this.#port = port;
    port.on('message', (m: FromTracePort) => {
      this.#waiting.get(m.id)?.();
      this.#waiting.delete(m.id);
    });
    // The writer's thread gone: nothing more will be taken, so no sync waits for it.
    port.on('close', () => {
      for (const done of this.#waiting.values()) done();
      this.#waiting.clear();
    });
    // Posting never needs the port to keep the thread alive; a sync waits on its own promise.
    port.unref();
  }

  enqueue(item: TraceItem): void {
    this.#batch.add(item);
  }

  /** Resolves once the writer's thread has taken every trace handed over so far; then closes the port. */
  async close(): Promise<void> {
    this.#batch.flush();
    const id = this.#nextId++;
    this.#port.ref();
    await new Promise<void>((resolve) => {
      this.#waiting.set(id, resolve);
      this.#send({ type: 'sync', id });
    });
    this.#port.close();
  }

  #send(message: ToTracePort): void {
    this.#port.postMessage(message);
  }
}
