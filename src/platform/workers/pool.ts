// The worker-thread pool (piscina) for pure, named tasks on plain data. A full queue is overload: the caller gets
// 503 worker_pool_overloaded, never a silent fallback to the event loop.
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { GatewayError } from '../errors/gateway-error.ts';
import { moduleBeside } from './module-beside.ts';
import type { PoolTask } from './pool-thread.ts';

const POOL_THREAD = moduleBeside(import.meta.url, './pool-thread').href;

/**
 * The tasks a pool runs, by name: each a pure function of plain data, exported under its name by a module beside its
 * owner. The service's list (src/runtime/worker-tasks.ts) declares them into this interface, so `run` knows each
 * task's input and output without the pool importing its owners.
 */
export interface WorkerTasks {}
export type TaskName = keyof WorkerTasks;
/** The module (file URL) of each task, loaded in a thread when the task first runs there. */
export type TaskFiles = { readonly [N in TaskName]: string };

type InputOf<F> = F extends (input: infer I) => unknown ? I : never;
type OutputOf<F> = F extends (...args: never[]) => infer O ? Awaited<O> : never;

export interface WorkerPoolOptions {
  maxThreads?: number;
  /** Tasks waiting for a thread before new ones are refused. */
  maxQueue?: number;
}

export interface WorkerPool {
  run<N extends TaskName>(name: N, input: InputOf<WorkerTasks[N]>): Promise<OutputOf<WorkerTasks[N]>>;
  close(): Promise<void>;
}

export function createWorkerPool(tasks: TaskFiles, options: WorkerPoolOptions = {}): WorkerPool {
  const maxQueue = options.maxQueue ?? 256;
  // Threads start on first use and stop when idle, so a pool nobody uses costs nothing.
  const piscina = new Piscina({
    minThreads: 0,
    maxThreads: options.maxThreads ?? Math.max(1, availableParallelism() - 1),
    maxQueue,
    idleTimeout: 30_000,
  });
  return {
    run(name, input) {
      if (piscina.queueSize >= maxQueue) {
        return Promise.reject(
          new GatewayError(
            'worker_pool_overloaded',
            'The gateway is overloaded: its worker threads are busy. Retry shortly.',
          ),
        );
      }
      return piscina.run({ file: tasks[name], name, input } satisfies PoolTask, {
        filename: POOL_THREAD,
        name: 'runTask',
      });
    },
    close: () => piscina.close(),
  };
}
