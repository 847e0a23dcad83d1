// The worker tasks run in this thread: the modules the pool loads in its threads, without threads.
import type { WorkerPool } from '../../src/platform/workers/pool.ts';
import { WORKER_TASK_FILES } from '../../src/runtime/worker-tasks.ts';

export const inlineWorkers: WorkerPool = {
  run: async (name, input) => {
    const task = ((await import(WORKER_TASK_FILES[name])) as Record<string, (i: typeof input) => never>)[name];
    return task(input);
  },
  close: async () => {},
};
