// The embedded store's thread: PGlite runs its WebAssembly Postgres synchronously, so a batch insert would stall
// the event loop that serves requests; here it stalls only this thread, which runs at background priority. Messages
// from pglite-database.ts: open, query, exec, copy (COPY ... FROM '/dev/blob' statements in one transaction),
// begin/end (an interactive transaction), connect (a port another thread sends the same messages on), close. Replies
// carry the request id and go back where the request came from.
import { parentPort, type MessagePort } from 'node:worker_threads';
import { runInBackground } from '../workers/thread-priority.ts';
import { PGlite, type Transaction } from '@electric-sql/pglite';

export type WorkerRequest =
  | { id: number; type: 'open'; dir: string }
  | { id: number; type: 'query'; sql: string; params?: unknown[]; tx?: number }
  | { id: number; type: 'exec'; sql: string; tx?: number }
  | { id: number; type: 'copy'; loads: readonly { sql: string; data: string }[] }
  | { id: number; type: 'begin' }
  | { id: number; type: 'end'; tx: number; commit: boolean }
  | { id: number; type: 'connect'; port: MessagePort }
  | { id: number; type: 'close' };

export type WorkerReply =
  { id: number; ok: true; result?: unknown } | { id: number; ok: false; error: { message: string; code?: string } };

/**
 * Postgres's defaults assume a server with memory to spare (128 MB of shared buffers); inside one process next to
 * the gateway they would double its resident size. These fit the embedded store's job (docs/performance.md).
 */
const EMBEDDED_SETTINGS = [
  'shared_buffers=16MB',
  'wal_buffers=1MB',
  'work_mem=2MB',
  'maintenance_work_mem=16MB',
  'temp_buffers=2MB',
];

/**
 * PGlite has no checkpointer process and never checkpoints on its own while open: its WAL would keep every byte
 * written (about 1.9 KB per gateway trace) until the store closes, and a crash would replay all of it on the next
 * start. A checkpoint once this much WAL has been written since the last one keeps pg_wal near that size.
 */
const CHECKPOINT_WAL_BYTES = 128 * 1024 * 1024;
const CHECKPOINT_CHECK_MS = 5_000;

let db: PGlite | undefined;
let checkpoints: NodeJS.Timeout | undefined;
const transactions = new Map<number, { tx: Transaction; end: (commit: boolean) => void; settled: Promise<unknown> }>();

type Reply = (message: WorkerReply) => void;
/** Transaction ids, unique across the clients. */
let nextTransaction = 1;

function failure(id: number, err: unknown): WorkerReply {
  const e = err as { message?: string; code?: string };
  return { id, ok: false, error: { message: e?.message ?? String(err), code: e?.code } };
}

async function checkpointWhenDue(): Promise<void> {
  const r = await db!.query<{ bytes: string }>(
    'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text AS bytes FROM pg_control_checkpoint()',
  );
  if (Number(r.rows[0].bytes) >= CHECKPOINT_WAL_BYTES) await db!.exec('CHECKPOINT');
}

function target(tx: number | undefined): PGlite | Transaction {
  if (tx === undefined) return db!;
  const open = transactions.get(tx);
  if (!open) throw new Error(`transaction ${tx} is not open`);
  return open.tx;
}

async function handle(m: WorkerRequest, reply: Reply): Promise<void> {
  try {
    switch (m.type) {
      case 'open':
        db = await PGlite.create(m.dir, { postgresqlconf: EMBEDDED_SETTINGS });
        // A failed checkpoint (a full disk) is tried again at the next check; the writes failing meanwhile report it.
        checkpoints = setInterval(() => checkpointWhenDue().catch(() => {}), CHECKPOINT_CHECK_MS).unref();
        return reply({ id: m.id, ok: true });
      case 'query': {
        const r = await target(m.tx).query(m.sql, m.params);
        return reply({ id: m.id, ok: true, result: { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length } });
      }
      case 'exec':
        await target(m.tx).exec(m.sql);
        return reply({ id: m.id, ok: true });
      case 'copy': {
        const loaded = await db!.transaction(async (tx) => {
          const rows: number[] = [];
          for (const load of m.loads)
            rows.push((await tx.query(load.sql, [], { blob: new Blob([load.data]) })).affectedRows ?? 0);
          return rows;
        });
        return reply({ id: m.id, ok: true, result: loaded });
      }
      case 'begin': {
        // The transaction stays open until `end` arrives; PGlite holds other queries back meanwhile.
        let opened = false;
        const id = nextTransaction++;
        const settled: Promise<unknown> = db!.transaction(async (tx) => {
          const commit = await new Promise<boolean>((end) => {
            transactions.set(id, { tx, end, settled });
            opened = true;
            reply({ id: m.id, ok: true, result: id });
          });
          if (!commit) await tx.rollback();
        });
        settled.catch((err: unknown) => {
          if (!opened) reply(failure(m.id, err));
        });
        return;
      }
      case 'end': {
        const open = transactions.get(m.tx);
        if (!open) throw new Error(`transaction ${m.tx} is not open`);
        open.end(m.commit);
        try {
          await open.settled;
        } finally {
          transactions.delete(m.tx);
        }
        return reply({ id: m.id, ok: true });
      }
      case 'connect': {
        const port = m.port;
        const answer: Reply = (message) => port.postMessage(message);
        port.on('message', (r: WorkerRequest) => void handle(r, answer));
        return reply({ id: m.id, ok: true });
      }
      case 'close':
        clearInterval(checkpoints);
        await db?.close();
        reply({ id: m.id, ok: true });
        return parentPort!.close();
    }
  } catch (err) {
    reply(failure(m.id, err));
  }
}

runInBackground();
const toParent: Reply = (message) => parentPort!.postMessage(message);
parentPort!.on('message', (m: WorkerRequest) => void handle(m, toParent));
