// Embedded Postgres (PGlite, WebAssembly) with its files under `dataDir/pglite`; one process owns it at a time.
// It runs on a worker thread of its own (pglite-worker.ts) so its synchronous query execution never stalls the
// event loop that serves requests.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel, Worker, type MessagePort, type Transferable } from 'node:worker_threads';
import { moduleBeside } from '../workers/module-beside.ts';
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

const WORKER_ENTRY = moduleBeside(import.meta.url, './pglite-worker');

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

/** The embedded store's database, which can also be reached from another thread over a port of its own. */
export interface PgliteDatabase extends Database, BulkLoader {
  /** A port to the store's thread for another thread: `pgliteOverPort` there makes it a Database. */
  connect(): Promise<MessagePort>;
}

export async function openPglite(dataDir: string): Promise<PgliteDatabase> {
  const dir = join(dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  // initdb grows the WebAssembly memory to about 450 MB, and WebAssembly memory never shrinks: a fresh store is
  // created by a thread that then exits, so the serving thread starts as small as it does on every later start.
  if (!existsSync(join(dir, 'PG_VERSION'))) await (await openPgliteThread(dir)).close();
  return openPgliteThread(dir);
}

/** The messages one client of the store's thread sends and receives: its Worker, or a port `connect` gave it. */
interface Channel {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  on(event: 'message', listener: (m: WorkerReply) => void): unknown;
}

/** Requests over a channel, each answered by the reply with its id; `failAll` rejects what is still waiting. */
function requester(channel: Channel) {
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let closed = false;
  channel.on('message', (m: WorkerReply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.ok) p.resolve(m.result);
    else p.reject(new PgliteError(m.error.message, m.error.code));
  });
  return {
    send<T>(request: Request, transfer?: Transferable[]): Promise<T> {
      if (closed) return Promise.reject(new Error('the embedded store is closed'));
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        channel.postMessage({ ...request, id }, transfer);
      });
    },
    failAll(err: Error) {
      for (const p of pending.values()) p.reject(err);
      pending.clear();
    },
    close() {
      closed = true;
    },
  };
}

type Send = ReturnType<typeof requester>['send'];

/** SQL, COPY loads and transactions over `send`. */
function sqlOver(send: Send): Omit<Database & BulkLoader, 'close'> {
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
  };
}

/** The embedded store as another thread reaches it, over a port from `PgliteDatabase.connect`. */
export function pgliteOverPort(port: MessagePort): Database & BulkLoader {
  const channel = requester(port);
  port.on('close', () => channel.failAll(new Error('the embedded store closed its port')));
  return {
    ...sqlOver(channel.send),
    async close() {
      channel.close();
      port.close();
    },
  };
}

async function openPgliteThread(dir: string): Promise<PgliteDatabase> {
  const worker = new Worker(WORKER_ENTRY);
  const channel = requester(worker);
  worker.on('error', channel.failAll);
  worker.on('exit', () => channel.failAll(new Error('the embedded store thread stopped')));
  let closed = false;
  try {
    await channel.send({ type: 'open', dir });
  } catch (err) {
    await worker.terminate();
    throw err;
  }
  return {
    ...sqlOver(channel.send),
    async connect() {
      const { port1, port2 } = new MessageChannel();
      await channel.send({ type: 'connect', port: port2 }, [port2]);
      return port1;
    },
    async close() {
      if (closed) return;
      await channel.send({ type: 'close' }).catch(() => {});
      closed = true;
      channel.close();
      await worker.terminate();
    },
  };
}
