// What each thread of the worker pool runs: the named task from its module, on a thread that yields the CPU to the
// threads serving requests. Pool tasks are the walks of large bodies (a 4 MiB prompt's scan or serialisation takes
// milliseconds); where they share a core with a serving thread, a request arriving meanwhile preempts them instead of
// waiting for the scheduler's next switch.
import { runInBackground } from './thread-priority.ts';

runInBackground();

export interface PoolTask {
  /** The task module's URL. */
  file: string;
  /** The task, exported by that name. */
  name: string;
  input: unknown;
}

type TaskModule = Record<string, (input: unknown) => unknown>;
/** Each task module once loaded, so a task after the first does not go through import() again. */
const loaded = new Map<string, TaskModule>();

export async function runTask({ file, name, input }: PoolTask): Promise<unknown> {
  let module = loaded.get(file);
  if (!module) loaded.set(file, (module = (await import(file)) as TaskModule));
  return module[name](input);
}
