// Ingestion through the public API as SDKs send it: POST /api/public/ingestion with Basic auth, each request the
// events of BATCH_TRACES traces, from several concurrent senders. Per block of traces acknowledged (and overall):
// traces/s and where the CPU went (cpu.ts).
import type { BenchStore } from './bench-store.ts';
import { cpuBetween, cpuMark, type CpuMark, type CpuSplit } from './cpu.ts';
import { traceEvents, type DataSet } from './data-set.ts';
import type { BenchService } from './service.ts';

export const BATCH_TRACES = 100;

export interface IngestOptions {
  set: DataSet;
  /** Traces [from, to) of the set. */
  from: number;
  to: number;
  senders: number;
  /** Traces per reported block. */
  block: number;
  onBlock?(b: IngestFigures): void;
}

export interface IngestFigures extends CpuSplit {
  /** Traces acknowledged by the end of the block (or run). */
  traces: number;
  tracesPerSecond: number;
  eventsPerSecond: number;
}

export interface IngestResult {
  overall: IngestFigures;
  blocks: IngestFigures[];
  /** Traces whose events were all acknowledged (201 each in the 207). */
  acknowledged: number;
  failedBatches: number;
  firstFailure?: string;
}

function figures(a: CpuMark, b: CpuMark, traces: [number, number], eventsPerTrace: number): IngestFigures {
  const cpu = cpuBetween(a, b);
  const n = traces[1] - traces[0];
  return {
    ...cpu,
    traces: traces[1],
    tracesPerSecond: n / cpu.seconds,
    eventsPerSecond: (n * eventsPerTrace) / cpu.seconds,
  };
}

/** One batch: 207 with a 201 for every event, or the reason it is not. */
async function send(service: BenchService, events: unknown[]): Promise<string | undefined> {
  try {
    const res = await fetch(`${service.adminUrl}/api/public/ingestion`, {
      method: 'POST',
      headers: { authorization: service.basicAuth, 'content-type': 'application/json' },
      body: JSON.stringify({ batch: events }),
    });
    const text = await res.text();
    if (res.status !== 207) return `${res.status}: ${text.slice(0, 300)}`;
    const body = JSON.parse(text) as { successes: unknown[]; errors: unknown[] };
    if (body.errors.length > 0 || body.successes.length !== events.length)
      return `207 with ${body.successes.length} successes of ${events.length}: ${JSON.stringify(body.errors[0]).slice(0, 300)}`;
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

export async function ingest(store: BenchStore, o: IngestOptions): Promise<IngestResult> {
  const eventsPerTrace = traceEvents(o.set, 0).length;
  const batches = Math.ceil((o.to - o.from) / BATCH_TRACES);
  const start = await cpuMark(store);
  const blocks: IngestFigures[] = [];
  let blockStart = { mark: start, traces: 0 };
  let acknowledged = 0;
  let failedBatches = 0;
  let firstFailure: string | undefined;
  let next = 0;
  let marks = Promise.resolve();
  const sender = async () => {
    for (let b = next++; b < batches; b = next++) {
      const first = o.from + b * BATCH_TRACES;
      const last = Math.min(o.to, first + BATCH_TRACES);
      const events = [];
      for (let i = first; i < last; i++) events.push(...traceEvents(o.set, i));
      const failure = await send(store.service, events);
      if (failure !== undefined) {
        failedBatches++;
        firstFailure ??= `traces ${first}–${last - 1}: ${failure}`;
        continue;
      }
      const before = acknowledged;
      acknowledged += last - first;
      if (Math.floor(acknowledged / o.block) > Math.floor(before / o.block)) {
        const traces = acknowledged;
        // Chained, so that blocks end in order however the senders' marks interleave.
        marks = marks.then(async () => {
          const end = { mark: await cpuMark(store), traces };
          const block = figures(blockStart.mark, end.mark, [blockStart.traces, end.traces], eventsPerTrace);
          blocks.push(block);
          o.onBlock?.(block);
          blockStart = end;
        });
      }
    }
  };
  await Promise.all(Array.from({ length: o.senders }, sender));
  await marks;
  return {
    overall: figures(start, await cpuMark(store), [0, acknowledged], eventsPerTrace),
    blocks,
    acknowledged,
    failedBatches,
    firstFailure,
  };
}
