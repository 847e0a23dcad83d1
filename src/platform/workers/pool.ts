// The worker-thread pool (piscina) for pure, named tasks on plain data. A full queue is overload: the caller gets
// 503 worker_pool_overloaded, never a silent fallback to the event loop.
import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { GatewayError } from '../errors/gateway-error.ts';
import type * as tasks from './tasks.ts';

type Tasks = typeof tasks;
export type TaskName = keyof Tasks;

export interface WorkerPoolOptions {
  maxThreads?: number;
  /** Tasks waiting for a thread before new ones are refused. */
  maxQueue?: number;
}

export interface WorkerPool {
  run<N extends TaskName>(name: N, input: Parameters<Tasks[N]>[0]): Promise<ReturnType<Tasks[N]>>;
  close(): Promise<void>;
}

// tasks.ts from source (type stripping), tasks.js once built.
const TASKS_FILE = new URL(`./tasks${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;

export function createWorkerPool(options: WorkerPoolOptions = {}): WorkerPool {
  const maxQueue = options.maxQueue ?? 256;
  // Threads start on first use and stop when idle, so a pool nobody uses costs nothing.
  const piscina = new Piscina({
    filename: TASKS_FILE,
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
      return piscina.run(input, { name });
    },
    close: () => piscina.close(),
  };
}
