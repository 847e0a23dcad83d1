// Embedded Postgres (PGlite, WebAssembly) with its files under `dataDir/pglite`; one process owns it at a time.
// It runs on a worker thread of its own (pglite-worker.ts) so its synchronous query execution never stalls the
// event loop that serves requests.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Database, Queryable, QueryResult } from './database.ts';
import type { WorkerReply, WorkerRequest } from './pglite-worker.ts';

type Request = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** An error from the embedded database, with its SQLSTATE code when there is one. */
export class PgliteError extends Error {
  readonly code?: string;
  constructor(message: string, code?: string) {
    super(message);
    this.code = code;
  }
}

// Sources run as .ts (tests, bench); the build runs the compiled .js beside this module.
const WORKER_ENTRY = new URL(
  import.meta.url.endsWith('.ts') ? './pglite-worker.ts' : './pglite-worker.js',
  import.meta.url,
);

/** Bulk loading the embedded store offers beside SQL; never on a transaction's Queryable. */
export interface BulkLoader {
  /**
   * Runs `COPY ... FROM '/dev/blob'` statements in one transaction, each reading its `data` (COPY's text format);
   * returns the rows each one loaded.
   */
  copyFrom(loads: readonly { sql: string; data: string }[]): Promise<number[]>;
}

export function bulkLoader(db: Queryable): BulkLoader | undefined {
  return typeof (db as Partial<BulkLoader>).copyFrom === 'function' ? (db as Queryable & BulkLoader) : undefined;
}

export async function openPglite(dataDir: string): Promise<Database & BulkLoader> {
  const dir = join(dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  // initdb grows the WebAssembly memory to about 450 MB, and WebAssembly memory never shrinks: a fresh store is
  // created by a thread that then exits, so the serving thread starts as small as it does on every later start.
  if (!existsSync(join(dir, 'PG_VERSION'))) await (await openPgliteThread(dir)).close();
  return openPgliteThread(dir);
}

async function openPgliteThread(dir: string): Promise<Database & BulkLoader> {
  const worker = new Worker(WORKER_ENTRY);
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let closed = false;
  worker.on('message', (m: WorkerReply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.ok) p.resolve(m.result);
    else p.reject(new PgliteError(m.error.message, m.error.code));
  });
  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('error', failAll);
  worker.on('exit', () => failAll(new Error('the embedded store thread stopped')));
  const send = <T>(request: Request): Promise<T> => {
    if (closed) return Promise.reject(new Error('the embedded store is closed'));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      worker.postMessage({ ...request, id });
    });
  };
  try {
    await send({ type: 'open', dir });
  } catch (err) {
    await worker.terminate();
    throw err;
  }
  const over = (tx?: number): Queryable => ({
    query: <R>(sql: string, params?: readonly unknown[]) =>
      send<QueryResult<R>>({ type: 'query', sql, params: params as unknown[] | undefined, tx }),
    exec: (sql: string) => send<void>({ type: 'exec', sql, tx }),
  });
  const base = over();
  return {
    kind: 'pglite',
    query: base.query,
    exec: base.exec,
    copyFrom: (loads) => send<number[]>({ type: 'copy', loads }),
    async transaction(work) {
      const tx = await send<number>({ type: 'begin' });
      let result;
      try {
        result = await work(over(tx));
      } catch (err) {
        await send({ type: 'end', tx, commit: false }).catch(() => {});
        throw err;
      }
      await send({ type: 'end', tx, commit: true });
      return result;
    },
    async close() {
      if (closed) return;
      await send({ type: 'close' }).catch(() => {});
      closed = true;
      await worker.terminate();
    },
  };
}
