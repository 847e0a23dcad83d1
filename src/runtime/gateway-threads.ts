// The gateway served on several threads of one process (`server.workers`, `svc start --workers`): each thread
// (gateway-thread.ts) binds the gateway port with SO_REUSEPORT, so the kernel spreads connections over them, and runs
// its own pipeline. The main thread keeps what the process has one of: the store's owner, the trace writer, the spend
// ledger, the admin listener, configuration reloads (it reloads first, then each thread), the drain on stop (every
// thread drains), and /metrics and /ready for the whole.
//
// With `server.large_request_bytes` one more thread serves only requests with large bodies, on a socket private to
// the process: whichever thread serves the port (this one, with one worker) passes such a request through to it, so a
// long prompt is read, parsed and forwarded there and the threads taking small requests only relay its bytes.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, type MessagePort } from 'node:worker_threads';
import type { Logger } from '../platform/telemetry/logger.ts';
import { moduleBeside } from '../platform/workers/module-beside.ts';
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

const THREAD_ENTRY = moduleBeside(import.meta.url, './gateway-thread');

/** How long a thread may take to end itself after its drain answered, before it is stopped from outside. */
const THREAD_EXIT_GRACE_MS = 5_000;

export interface GatewayThreadsOptions {
  /** Threads on the gateway port; 0 when the main thread serves it. */
  count: number;
  /** Start the large-request thread. */
  largeRequests: boolean;
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
  /** Resolves with the thread's bound address (a socket path for the large-request thread); rejects when it failed to start. */
  readonly listening: Promise<AddressInfo | string>;
  exited = false;
  /** Resolves when the thread has ended. */
  readonly ended: Promise<void>;
  #nextId = 1;
  readonly #waiting = new Map<
    number,
    { resolve: (m: ThreadMetrics | undefined) => void; reject: (e: Error) => void }
  >();

  constructor(data: GatewayThreadData, options: GatewayThreadsOptions, state: { stopping: boolean }) {
    const transfer = [data.traces, ...(data.store.kind === 'pglite' ? [data.store.port] : [])];
    this.worker = new Worker(THREAD_ENTRY, { workerData: data, transferList: transfer });
    this.ended = new Promise((resolve) => this.worker.once('exit', () => resolve()));
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
  readonly #large: GatewayThread | undefined;
  readonly #log: Logger;
  /** The port the threads on it listen on, as the operating system reports it; none when the main thread serves it. */
  readonly address: AddressInfo | undefined;
  /** The large-request thread's socket, when it runs. */
  readonly largeRequests: string | undefined;
  readonly #state: { stopping: boolean; socketDir?: string };

  private constructor(
    threads: GatewayThread[],
    at: { address?: AddressInfo; largeRequests?: string; large?: GatewayThread },
    log: Logger,
    state: { stopping: boolean; socketDir?: string },
  ) {
    this.#threads = threads;
    this.#large = at.large;
    this.address = at.address;
    this.largeRequests = at.largeRequests;
    this.#log = log;
    this.#state = state;
  }

  /**
   * Starts the large-request thread (when asked) and then the threads on the port: the first binds it (port 0: any),
   * the others the port it got.
   */
  static async start(options: GatewayThreadsOptions): Promise<GatewayThreads> {
    // SO_REUSEPORT would let this process share a port another process holds with it too: a plain bind first finds a
    // port in use, as a single-threaded start would.
    if (options.count > 0 && options.listen.port !== 0) await probePortFree(options.listen);
    // A directory only this user may enter holds the socket: nothing outside the process passes requests to it.
    const state = {
      stopping: false,
      socketDir: options.largeRequests ? mkdtempSync(join(tmpdir(), 'svc-')) : undefined,
    };
    const threads: GatewayThread[] = [];
    const spawn = async (index: number, listen: GatewayThreadData['listen'], largeRequests?: string) => {
      const data: GatewayThreadData = {
        index,
        config: options.config,
        env: options.env,
        listen,
        largeRequests,
        store: await options.store(),
        traces: options.traces(),
        counters: options.counters,
        prepared: options.prepared,
      };
      const thread = new GatewayThread(data, options, state);
      threads.push(thread);
      return thread;
    };
    try {
      const largeRequests = state.socketDir && join(state.socketDir, 'large-requests.sock');
      const large = largeRequests ? await spawn(options.count, { path: largeRequests }) : undefined;
      await large?.listening;
      const at = { host: options.listen.host };
      const first = options.count > 0 ? await spawn(0, { ...at, port: options.listen.port }, largeRequests) : undefined;
      const address = (await first?.listening) as AddressInfo | undefined;
      if (address)
        await Promise.all(
          Array.from(
            { length: options.count - 1 },
            async (_, i) => (await spawn(i + 1, { ...at, port: address.port }, largeRequests)).listening,
          ),
        );
      return new GatewayThreads(threads, { address, largeRequests, large }, options.log, state);
    } catch (err) {
      state.stopping = true;
      await Promise.all(threads.map((t) => t.worker.terminate()));
      removeSocketDir(state.socketDir);
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

  /** The store is prepared: the threads read its keys and poll them; resolves once every thread has them. */
  async prepared(): Promise<void> {
    await Promise.all(this.#threads.map((t) => t.ask({ type: 'prepared' })));
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

  /**
   * Every thread drains (up to `deadlineMs` for its requests in flight), hands over its traces and spend, and ends.
   * The large-request thread goes last, once the threads on the port and `portDrained` (the main thread's own
   * listener) passed it every request they took.
   */
  async drain(deadlineMs: number, portDrained: Promise<unknown> = Promise.resolve()): Promise<void> {
    this.#state.stopping = true;
    const started = performance.now();
    const drainOne = async (t: GatewayThread, ms: number) => {
      await t.ask({ type: 'drain', deadlineMs: ms }).catch((err: Error) => {
        if (!t.exited) this.#log.error('a gateway thread did not drain cleanly', { error: err.message });
      });
      // A drained thread ends itself; one that failed to drain, or hangs, is stopped from here after a grace period.
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([t.ended, new Promise((resolve) => (grace = setTimeout(resolve, THREAD_EXIT_GRACE_MS)))]);
      clearTimeout(grace);
      if (!t.exited) await t.worker.terminate();
    };
    await Promise.all([
      portDrained,
      ...this.#threads.filter((t) => t !== this.#large).map((t) => drainOne(t, deadlineMs)),
    ]);
    if (this.#large) await drainOne(this.#large, Math.max(0, deadlineMs - (performance.now() - started)));
    removeSocketDir(this.#state.socketDir);
  }
}

function removeSocketDir(dir: string | undefined): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
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
