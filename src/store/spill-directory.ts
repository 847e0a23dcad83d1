// Append-only spill files for items (traces, spend rows) a durable writer's queue cannot hold. Each process
// appends to a file of its own; replay reads closed files (its own rotated ones and any left by a stopped process), then deletes each once written.
// A file still marked open is adopted at start unless a live process (another one on this host, or another
// writer in this process) is appending to it: a process killed while spilling leaves one behind, and after a
// container restart the new process often has the same pid as the old one.
import { createReadStream, createWriteStream, mkdirSync, readdirSync, renameSync, unlinkSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';

const OPEN_SUFFIX = '.open';
/** Files being appended by spill directories of this process. */
const openHere = new Set<string>();

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

export class SpillDirectory<T = unknown> {
  readonly #dir: string;
  readonly #onError: (err: Error) => void;
  #current: { path: string; stream: WriteStream } | undefined;
  /** Lines of a closed file already written by an earlier replay that then failed: skipped on the next one. */
  readonly #replayed = new Map<string, number>();

  constructor(dir: string, onError: (err: Error) => void) {
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

  append(item: T): void {
    if (!this.#current) {
      const path = join(this.#dir, `spill-${Date.now()}-${process.pid}-${randomBytes(3).toString('hex')}.ndjson${OPEN_SUFFIX}`);
      const stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
      stream.on('error', this.#onError);
      this.#current = { path, stream };
      openHere.add(path);
    }
    this.#current.stream.write(`${JSON.stringify(item)}\n`);
  }

  /** Closed files waiting for replay, or an open one with content. */
  hasReplayable(): boolean {
    return this.#current !== undefined || this.#closedFiles().length > 0;
  }

  fileCount(): number {
    return this.#closedFiles().length + (this.#current ? 1 : 0);
  }

  /** Closes the file being appended so it can be replayed. */
  async close(): Promise<void> {
    const current = this.#current;
    if (!current) return;
    this.#current = undefined;
    await new Promise<void>((resolve) => current.stream.end(resolve));
    openHere.delete(current.path);
    renameSync(current.path, current.path.slice(0, -OPEN_SUFFIX.length));
  }

  async replay(batchSize: number, write: (items: T[]) => Promise<void>): Promise<void> {
    await this.close();
    for (const file of this.#closedFiles()) {
      const path = join(this.#dir, file);
      const input = createReadStream(path, 'utf8');
      const lines = createInterface({ input, crlfDelay: Infinity });
      const skip = this.#replayed.get(file) ?? 0;
      let seen = 0;
      let batch: T[] = [];
      let batchLines = 0;
      const flush = async () => {
        await write(batch);
        this.#replayed.set(file, (this.#replayed.get(file) ?? skip) + batchLines);
        batch = [];
        batchLines = 0;
      };
      try {
        for await (const line of lines) {
          if (line.trim() === '') continue;
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
      } finally {
        // A failed write leaves the loop early: release the file now, not when the stream is collected.
        lines.close();
        input.destroy();
      }
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
