// Append-only spill files for items (traces, spend rows) a durable writer holds on disk only: while its database
// fails, past its queue's capacity, at shutdown. Each process appends to a file of its own; replay reads closed
// files (its own rotated ones and any left by a stopped process), then deletes each once written.
// Appends are buffered and written by `flush()` (the writer calls it every few tens of milliseconds) with one
// synchronous write: once it returns the lines are in the page cache, which a killed process does not lose.
// A file still marked open is adopted at start unless a live process (another one on this host, or another
// writer in this process) is appending to it: a process killed while spilling leaves one behind, and after a
// container restart the new process often has the same pid as the old one. The writer's journal
// (write-journal.ts) leaves files of the same kind, with checkpoint lines saying how many items are stored already.
import {
  closeSync,
  createReadStream,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';

const OPEN_SUFFIX = '.open';
/** Marks the files of a write journal, whose checkpoint lines replay honours. */
export const JOURNAL_MARK = '.journal';
/** A journal line saying the first N items of its file are stored: `{"svc.journal.stored":N}`. */
export const CHECKPOINT_PREFIX = '{"svc.journal.stored":';
/** Files being appended by spill directories and journals of this process. */
const openHere = new Set<string>();

/** A new file name for items appended by this process, marked open; the caller appends to it. */
export function openSpillFile(dir: string, kind: '' | typeof JOURNAL_MARK = ''): { path: string; fd: number } {
  const path = join(
    dir,
    `spill-${Date.now()}-${process.pid}-${randomBytes(3).toString('hex')}${kind}.ndjson${OPEN_SUFFIX}`,
  );
  const fd = openSync(path, 'a', 0o600);
  openHere.add(path);
  return { path, fd };
}

/** Stops tracking a file opened by openSpillFile (closed and renamed, or deleted, by the caller). */
export function releaseSpillFile(path: string): void {
  openHere.delete(path);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when no live process can be appending to this open file. */
function orphaned(dir: string, file: string): boolean {
  if (openHere.has(join(dir, file))) return false;
  const pid = Number(/^spill-\d+-(\d+)-/.exec(file)?.[1]);
  return !Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || !processAlive(pid);
}

/** Lines of the file: a readline interface closed with its stream when the loop ends early. */
async function* linesOf(path: string): AsyncGenerator<string> {
  const input = createReadStream(path, 'utf8');
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    yield* lines;
  } finally {
    // A failed write leaves the loop early: release the file now, not when the stream is collected.
    lines.close();
    input.destroy();
  }
}

/** The highest checkpoint of a journal file: how many of its first items were stored before it was left. */
async function storedCheckpoint(path: string): Promise<number> {
  let stored = 0;
  for await (const line of linesOf(path)) {
    if (!line.startsWith(CHECKPOINT_PREFIX)) continue;
    const n = Number(line.slice(CHECKPOINT_PREFIX.length, -1));
    if (Number.isSafeInteger(n) && n > stored) stored = n;
  }
  return stored;
}

export class SpillDirectory<T = unknown> {
  readonly #dir: string;
  readonly #onError: (err: Error, items: number) => void;
  #current: { path: string; fd: number } | undefined;
  /** Lines appended since the last flush. */
  #pending: string[] = [];
  /** Lines of a closed file already written by an earlier replay that then failed: skipped on the next one. */
  readonly #replayed = new Map<string, number>();

  /** `onError` gets each failed write and how many items it lost. */
  constructor(dir: string, onError: (err: Error, items: number) => void) {
    this.#dir = dir;
    this.#onError = onError;
    mkdirSync(dir, { recursive: true });
    // A file still marked open whose process is gone (it stopped without closing it): make it replayable.
    for (const f of readdirSync(dir)) {
      if (f.endsWith(`.ndjson${OPEN_SUFFIX}`) && orphaned(dir, f)) {
        try {
          renameSync(join(dir, f), join(dir, f.slice(0, -OPEN_SUFFIX.length)));
        } catch {
          // Another process renamed it first.
        }
      }
    }
  }

  get dir(): string {
    return this.#dir;
  }

  /** Adds the item to the file at the next flush. */
  append(item: T): void {
    this.#pending.push(`${JSON.stringify(item)}\n`);
  }

  /** Writes the lines appended since the last flush, in one write. */
  flush(): void {
    if (this.#pending.length === 0) return;
    const lines = this.#pending;
    this.#pending = [];
    try {
      this.#current ??= openSpillFile(this.#dir);
      writeSync(this.#current.fd, lines.join(''));
    } catch (err) {
      this.#onError(err as Error, lines.length);
    }
  }

  /** Closed files waiting for replay, or items appended to the open one. */
  hasReplayable(): boolean {
    return this.#pending.length > 0 || this.#current !== undefined || this.#closedFiles().length > 0;
  }

  fileCount(): number {
    return this.#closedFiles().length + (this.#current || this.#pending.length > 0 ? 1 : 0);
  }

  /** Flushes and closes the file being appended so it can be replayed. */
  close(): void {
    this.flush();
    const current = this.#current;
    if (!current) return;
    this.#current = undefined;
    closeSync(current.fd);
    releaseSpillFile(current.path);
    renameSync(current.path, current.path.slice(0, -OPEN_SUFFIX.length));
  }

  async replay(batchSize: number, write: (items: T[]) => Promise<void>): Promise<void> {
    this.close();
    for (const file of this.#closedFiles()) {
      const path = join(this.#dir, file);
      // Items a journal had stored already before it was left behind are not written again.
      const skip = this.#replayed.get(file) ?? (file.includes(`${JOURNAL_MARK}.`) ? await storedCheckpoint(path) : 0);
      let seen = 0;
      let batch: T[] = [];
      let batchLines = 0;
      const flush = async () => {
        await write(batch);
        this.#replayed.set(file, (this.#replayed.get(file) ?? skip) + batchLines);
        batch = [];
        batchLines = 0;
      };
      for await (const line of linesOf(path)) {
        if (line.trim() === '' || line.startsWith(CHECKPOINT_PREFIX)) continue;
        if (seen++ < skip) continue;
        batchLines++;
        try {
          batch.push(JSON.parse(line) as T);
        } catch {
          // A line cut short by a crash cannot be read back; skip it rather than block the file.
          continue;
        }
        if (batch.length >= batchSize) await flush();
      }
      if (batch.length > 0) await flush();
      this.#replayed.delete(file);
      try {
        unlinkSync(path);
      } catch {
        // Another process sharing data_dir replayed the same file; its rows were skipped as already stored.
      }
    }
  }

  #closedFiles(): string[] {
    try {
      return readdirSync(this.#dir)
        .filter((f) => f.endsWith('.ndjson'))
        .sort();
    } catch {
      // The directory went away (data_dir removed under a running process): nothing to replay.
      return [];
    }
  }
}
