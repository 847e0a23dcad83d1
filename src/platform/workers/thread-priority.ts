// A background thread (the embedded store's) yields the CPU to the threads that serve requests. On a
// machine with fewer free cores than busy threads the kernel shares a core between them, and a request that arrives
// while a batch insert runs on the same core would wait for the scheduler's next switch (milliseconds); at a lower
// priority the request's thread takes the core as soon as it wakes. Linux sets niceness per thread, by its thread id.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * The niceness background threads run at. Against a busy thread at the default 0 one at 10 gets about a tenth of a
 * shared core: the store still moves under full load (writers whose batches wait spill to disk), and a waking request
 * thread preempts it.
 */
export const BACKGROUND_NICENESS = 10;

/** The kernel's id of the calling thread (Linux), read from /proc/thread-self (`<pid>/task/<tid>`). */
export function currentThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    return Number.isSafeInteger(tid) ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** Lowers the calling thread to background priority; false where the system has no per-thread niceness. */
export function runInBackground(): boolean {
  const tid = currentThreadId();
  if (tid === undefined) return false;
  try {
    setPriority(tid, BACKGROUND_NICENESS);
    return true;
  } catch {
    return false;
  }
}
