// The gateway served on several threads of one process (`server.workers`, `svc start --workers`): each thread
// (gateway-thread.ts) binds the gateway port with SO_REUSEPORT, so the kernel spreads connections over them, and runs
// its own pipeline. The main thread keeps what the process has one of: the store's owner, the trace writer, the spend
// ledger, the admin listener, configuration reloads (it reloads first, then each thread), the drain on stop (every
// thread drains), and /metrics and /ready for the whole.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Worker, type MessagePort } from 'node:worker_threads';
import type { Logger } from '../platform/telemetry/logger.ts';
import type { SpendLedger } from '../plugin-api/services.ts';
import { portInUse, type ListenAddress } from './port-in-use.ts';
import type {
  FromGatewayThread,
  GatewayThreadData,
  ThreadMetrics,
  ThreadRequest,
  ToGatewayThread,
} from './gateway-thread-messages.ts';
import { serveSpend } from './spend-relay.ts';
import { serveValue } from './process-values-relay.ts';
import type { ProcessValues } from '../platform/store/memory-values.ts';

// Sources run as .ts (tests, bench); the build runs the compiled .js beside this module.
const THREAD_ENTRY = new URL(
  import.meta.url.endsWith('.ts') ? './gateway-thread.ts' : './gateway-thread.js',
  import.meta.url,
);

export interface GatewayThreadsOptions {
  count: number;
  config: GatewayThreadData['config'];
  env: GatewayThreadData['env'];
  listen: ListenAddress;
  /** A link to the store for one thread: a port of the embedded store's thread, or a PostgreSQL URL. */
  store: () => Promise<GatewayThreadData['store']>;
  /** A port of the trace writer's thread for one thread. */
  traces: () => MessagePort;
  counters?: SharedArrayBuffer;
  prepared: boolean;
  spend: SpendLedger;
  /** The process's named byte values (the cache's memory backend), which the threads reach through messages. */
  values: ProcessValues;
  log: Logger;
}

/** One gateway thread as the main thread drives it. */
class GatewayThread {
  readonly worker: Worker;
  /** Resolves with the thread's bound address; rejects when it failed to start. */
  readonly listening: Promise<AddressInfo>;
  exited = false;
  #nextId = 1;
  readonly #waiting = new Map<
    number,
    { resolve: (m: ThreadMetrics | undefined) => void; reject: (e: Error) => void }
  >();

  constructor(data: GatewayThreadData, options: GatewayThreadsOptions, state: { stopping: boolean }) {
    const transfer = [data.traces, ...(data.store.kind === 'pglite' ? [data.store.port] : [])];
    this.worker = new Worker(THREAD_ENTRY, { workerData: data, transferList: transfer });
    const { log } = options;
    this.listening = new Promise((resolve, reject) => {
      this.worker.on('message', (m: FromGatewayThread) => {
        switch (m.type) {
          case 'listening':
            return resolve(m.address);
          case 'log':
            return log[m.level](m.message, m.fields);
          case 'spend':
          case 'spent':
            return serveSpend(options.spend, this.worker, m);
          case 'value-get':
          case 'value-set':
            return serveValue(options.values, (answer) => this.tell(answer), m);
          case 'done': {
            const waiting = this.#waiting.get(m.id);
            this.#waiting.delete(m.id);
            if (m.error === undefined) waiting?.resolve(m.metrics);
            else waiting?.reject(new Error(m.error));
          }
        }
      });
      this.worker.on('error', (err) => {
        reject(err);
        if (!state.stopping) log.error('a gateway thread failed', { thread: data.index, error: err.stack });
      });
      this.worker.on('exit', (code) => {
        this.exited = true;
        if (!state.stopping) log.error('a gateway thread stopped; /ready answers 503', { thread: data.index, code });
        reject(new Error(`gateway thread ${data.index} stopped (exit code ${code})`));
        for (const w of this.#waiting.values()) w.reject(new Error('the gateway thread stopped'));
        this.#waiting.clear();
      });
    });
  }

  ask(request: ThreadRequest): Promise<ThreadMetrics | undefined> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (this.exited) return reject(new Error('the gateway thread stopped'));
      this.#waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id } satisfies ToGatewayThread);
    });
  }

  tell(message: ToGatewayThread): void {
    if (!this.exited) this.worker.postMessage(message);
  }
}

export class GatewayThreads {
  readonly #threads: GatewayThread[];
  readonly #log: Logger;
  /** The port every thread listens on, as the operating system reports it. */
  readonly address: AddressInfo;
  readonly #state: { stopping: boolean };

  private constructor(threads: GatewayThread[], address: AddressInfo, log: Logger, state: { stopping: boolean }) {
    this.#threads = threads;
    this.address = address;
    this.#log = log;
    this.#state = state;
  }

  /** Starts every thread; the first binds the port (port 0: any), the others the port it got. */
  static async start(options: GatewayThreadsOptions): Promise<GatewayThreads> {
    // SO_REUSEPORT would let this process share a port another process holds with it too: a plain bind first finds a
    // port in use, as a single-threaded start would.
    if (options.listen.port !== 0) await probePortFree(options.listen);
    const state = { stopping: false };
    const threads: GatewayThread[] = [];
    const spawn = async (index: number, port: number) => {
      const data: GatewayThreadData = {
        index,
        config: options.config,
        env: options.env,
        listen: { host: options.listen.host, port },
        store: await options.store(),
        traces: options.traces(),
        counters: options.counters,
        prepared: options.prepared,
      };
      const thread = new GatewayThread(data, options, state);
      threads.push(thread);
      return thread.listening;
    };
    try {
      const address = await spawn(0, options.listen.port);
      await Promise.all(Array.from({ length: options.count - 1 }, (_, i) => spawn(i + 1, address.port)));
      return new GatewayThreads(threads, address, options.log, state);
    } catch (err) {
      state.stopping = true;
      await Promise.all(threads.map((t) => t.worker.terminate()));
      throw err;
    }
  }

  get count(): number {
    return this.#threads.length;
  }

  /** Every thread is running. */
  get alive(): boolean {
    return this.#threads.every((t) => !t.exited);
  }

  /** The store is prepared: the threads start polling its keys. */
  prepared(): void {
    for (const t of this.#threads) t.tell({ type: 'prepared' });
  }

  /** Each thread builds the configuration again (after the main thread did); the failures, one line per thread. */
  async reload(): Promise<string[]> {
    const results = await Promise.allSettled(this.#threads.map((t) => t.ask({ type: 'reload' })));
    const failures = results.flatMap((r, i) => (r.status === 'rejected' ? [`thread ${i}: ${String(r.reason)}`] : []));
    for (const f of failures) this.#log.error('a gateway thread kept its previous configuration', { error: f });
    return failures;
  }

  /** Every thread reads the store's key changes now (a key minted on the admin listener is served at once). */
  async refreshKeys(): Promise<void> {
    await Promise.all(this.#threads.map((t) => t.ask({ type: 'refresh-keys' })));
  }

  /** Each running thread's numbers. */
  async metrics(): Promise<ThreadMetrics[]> {
    const running = this.#threads.filter((t) => !t.exited);
    return (await Promise.all(running.map((t) => t.ask({ type: 'metrics' })))) as ThreadMetrics[];
  }

  /** Every thread drains (up to `deadlineMs` for its requests in flight), hands over its traces and spend, and ends. */
  async drain(deadlineMs: number): Promise<void> {
    this.#state.stopping = true;
    await Promise.all(
      this.#threads.map(async (t) => {
        await t.ask({ type: 'drain', deadlineMs }).catch((err: Error) => {
          if (!t.exited) this.#log.error('a gateway thread did not drain cleanly', { error: err.message });
        });
        await t.worker.terminate();
      }),
    );
  }
}

function probePortFree(at: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err) => {
      try {
        portInUse('gateway', at)(err);
      } catch (named) {
        reject(named);
      }
    });
    probe.listen({ port: at.port, host: at.host }, () => probe.close(() => resolve()));
  });
}
