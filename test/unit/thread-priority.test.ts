// Background threads run at a lower priority than the threads that serve requests: a worker thread that asks for it
// has the background niceness in the kernel's own record of it (/proc/<pid>/task/<tid>/stat), and the main thread keeps its own.
import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { BACKGROUND_NICENESS, currentThreadId } from '../../src/platform/workers/thread-priority.ts';

/** The niceness field of a thread's stat line (the 19th field; the command name in parentheses may hold spaces). */
function nicenessOf(tid: number): number {
  const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

t.test(
  'a worker thread that runs in the background has the background niceness; the main thread is untouched',
  async (t) => {
    const module = new URL('../../src/platform/workers/thread-priority.ts', import.meta.url).href;
    const worker = new Worker(
      `import(${JSON.stringify(module)}).then(({ runInBackground, currentThreadId }) => {
       const lowered = runInBackground();
       require('node:worker_threads').parentPort.postMessage({ lowered, tid: currentThreadId() });
       setTimeout(() => {}, 10_000);
     });`,
      { eval: true },
    );
    t.teardown(() => worker.terminate());
    const { lowered, tid } = await new Promise<{ lowered: boolean; tid: number }>((resolve) =>
      worker.once('message', resolve),
    );
    t.equal(lowered, true);
    t.not(tid, process.pid, 'a thread of its own');
    t.equal(nicenessOf(tid), BACKGROUND_NICENESS);
    t.equal(nicenessOf(currentThreadId()!), getPriority(), 'the main thread keeps the priority it started with');
  },
);
