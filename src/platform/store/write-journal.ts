// The durable writer's journal: the items its in-memory queue holds, also appended to a file of the spill directory,
// so that a process killed with SIGKILL loses only the items of the last journal interval (the page cache keeps what
// was written; a machine crash loses what the kernel had not flushed yet). Once the database has stored items, a
// checkpoint line records how many of the file's items are stored; a file whose items are all stored is emptied (or,
// if rotated out, deleted). A file left by a killed process is adopted and replayed like a spill file, from its last
// checkpoint on, so items already stored are not written again.
import { closeSync, ftruncateSync, unlinkSync, writeSync } from 'node:fs';
import { CHECKPOINT_PREFIX, JOURNAL_MARK, openSpillFile, releaseSpillFile } from './spill-directory.ts';

interface Segment {
  path: string;
  fd: number;
  /** Items written to the file. */
  items: number;
  /** Of those, the first `stored` are in the database. */
  stored: number;
}

export class WriteJournal {
  readonly #dir: string;
  readonly #maxItemsPerFile: number;
  readonly #onError: (err: Error) => void;
  /** Oldest first; items are stored in the order they were journaled. */
  #segments: Segment[] = [];
  #failing = false;

  /** `onError` is called once per failure streak (a full disk): the items stay in memory, unjournaled. */
  constructor(dir: string, onError: (err: Error) => void, maxItemsPerFile = 50_000) {
    this.#dir = dir;
    this.#onError = onError;
    this.#maxItemsPerFile = maxItemsPerFile;
  }

  /** Writes the lines of `count` items, in queue order, with one write. False when it could not be written. */
  append(lines: string, count: number): boolean {
    try {
      let current = this.#segments.at(-1);
      if (!current || current.items >= this.#maxItemsPerFile) {
        current = { ...openSpillFile(this.#dir, JOURNAL_MARK), items: 0, stored: 0 };
        this.#segments.push(current);
      }
      writeSync(current.fd, lines);
      current.items += count;
      this.#failing = false;
      return true;
    } catch (err) {
      if (!this.#failing) this.#onError(err as Error);
      this.#failing = true;
      return false;
    }
  }

  /** The oldest `count` journaled items are stored. */
  stored(count: number): void {
    try {
      while (count > 0 && this.#segments.length > 0) {
        const seg = this.#segments[0];
        const take = Math.min(count, seg.items - seg.stored);
        seg.stored += take;
        count -= take;
        if (seg.stored < seg.items) {
          writeSync(seg.fd, `${CHECKPOINT_PREFIX}${seg.stored}}\n`);
          return;
        }
        if (this.#segments.length === 1 && seg.items < this.#maxItemsPerFile) {
          // All stored: empty the file in place rather than creating one more.
          ftruncateSync(seg.fd, 0);
          seg.items = 0;
          seg.stored = 0;
          return;
        }
        this.#remove(seg);
        this.#segments.shift();
      }
    } catch (err) {
      // A checkpoint not written only means a replay after a crash writes those items again (stored rows are skipped).
      if (!this.#failing) this.#onError(err as Error);
      this.#failing = true;
    }
  }

  /** Deletes the journal files: their items are stored or were moved to a spill file. */
  discard(): void {
    for (const seg of this.#segments.splice(0)) {
      try {
        this.#remove(seg);
      } catch (err) {
        this.#onError(err as Error);
      }
    }
  }

  #remove(seg: Segment): void {
    closeSync(seg.fd);
    releaseSpillFile(seg.path);
    unlinkSync(seg.path);
  }
}
