// The trace writer's thread (trace-thread.ts starts it): the durable writer's queue, journal, spill files, batch
// statements and metric rollups live here, with their own heap, so none of that work or its garbage collection runs on
// the thread that serves requests. It runs at normal priority: it must take the serving thread's messages as fast as
// they come, or they would pile up in memory outside the writer's bounded queue (which spills to disk when full). The
// store is reached over a port of the embedded store's thread, or over a PostgreSQL pool of this thread's own.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { Database } from '../../platform/store/database.ts';
import { gatedDatabase } from '../../platform/store/gated-database.ts';
import { pgliteOverPort } from '../../platform/store/pglite-database.ts';
import { openPostgres } from '../../platform/store/postgres-database.ts';
import { forwardingLogger, type LogMessage } from '../../platform/telemetry/forwarding-logger.ts';
import type { TraceItem } from './trace-item.ts';
import { TraceWriter, type TraceWriterStats } from './trace-writer.ts';

export type TraceThreadStore = { kind: 'pglite'; port: MessagePort } | { kind: 'postgres'; url: string };

export interface TraceThreadData {
  store: TraceThreadStore;
  spillDir: string;
  capacity?: number;
  batchSize?: number;
}

export type ToTraceThread =
  | { type: 'items'; items: TraceItem[] }
  /** The store is migrated: writes may start (until then they spill, as on a store not reached yet). */
  | { type: 'prepared' }
  | { type: 'flush-rollups'; id: number }
  | { type: 'stop'; id: number; deadlineMs?: number }
  /** A port another serving thread posts its traces on (trace-port-sink.ts). */
  | { type: 'port'; port: MessagePort };

/** What a serving thread posts on a trace port: traces, or a sync answered once every trace before it was taken. */
export type ToTracePort = { type: 'items'; items: TraceItem[] } | { type: 'sync'; id: number };
export type FromTracePort = { type: 'synced'; id: number };

export type FromTraceThread =
  /** `received`: the traces this thread has taken from `items` messages so far. */
  | { type: 'stats'; stats: TraceWriterStats; received: number }
  | LogMessage
  | { type: 'done'; id: number; error?: string };

/** How often the writer's numbers go to the serving thread, which shows them in /metrics. */
const STATS_EVERY_MS = 250;

const post = (message: FromTraceThread) => parentPort!.postMessage(message);

function openStore(store: TraceThreadStore): Database {
  return store.kind === 'pglite' ? pgliteOverPort(store.port) : openPostgres(store.url);
}

async function main(): Promise<void> {
  const data = workerData as TraceThreadData;
  const raw = openStore(data.store);
  let prepared = false;
  const writer = new TraceWriter(
    gatedDatabase(raw, () => prepared),
    {
      spillDir: data.spillDir,
      log: forwardingLogger(post),
      capacity: data.capacity,
      batchSize: data.batchSize,
    },
  );
  writer.start();
  let received = 0;
  const ports: MessagePort[] = [];
  const sendStats = () => post({ type: 'stats', stats: writer.snapshot(), received });
  sendStats();
  const stats = setInterval(sendStats, STATS_EVERY_MS);
  const done = async (id: number, work: () => Promise<void>) => {
    try {
      await work();
      sendStats();
      post({ type: 'done', id });
    } catch (err) {
      post({ type: 'done', id, error: (err as Error).message });
    }
  };
  parentPort!.on('message', (m: ToTraceThread) => {
    switch (m.type) {
      case 'items':
        for (const item of m.items) writer.enqueue(item);
        received += m.items.length;
        return;
      case 'prepared':
        prepared = true;
        return;
      case 'port':
        ports.push(m.port);
        m.port.on('message', (p: ToTracePort) => {
          if (p.type === 'items') for (const item of p.items) writer.enqueue(item);
          else m.port.postMessage({ type: 'synced', id: p.id } satisfies FromTracePort);
        });
        return;
      case 'flush-rollups':
        return void done(m.id, () => writer.flushRollups());
      case 'stop':
        return void done(m.id, async () => {
          for (const port of ports) port.close();
          await writer.stop(m.deadlineMs);
          clearInterval(stats);
          await raw.close();
        });
    }
  });
}

await main();
