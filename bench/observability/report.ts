// The observability bench's tables (ingestion blocks, query latencies, bytes per trace) and its goals as verdicts.
import { f, table, type Verdict } from '../report.ts';
import type { StoredRows, TableSize } from './bench-store.ts';
import type { IngestFigures, IngestResult } from './ingest.ts';
import { GOAL_MS, type QueryTiming } from './queries.ts';

export const INGEST_GOAL = 4000;
/** The last block may ingest at most this much slower than the first. */
export const INGEST_DRIFT = 0.15;

const thousands = (n: number) => Math.round(n).toLocaleString('en-US');

export function ingestTable(r: IngestResult): string {
  const line = (label: string, b: IngestFigures) => [
    label,
    thousands(b.tracesPerSecond),
    thousands(b.eventsPerSecond),
    f(b.seconds, 1),
    f(b.serviceCores, 2),
    f(b.postgresCores, 2),
    f(b.loadCores, 2),
    f(b.otherCores, 2),
  ];
  let from = 0;
  const blocks = r.blocks.map((b) => {
    const label = `${thousands(from)}–${thousands(b.traces)}`;
    from = b.traces;
    return line(label, b);
  });
  return table([
    ['traces', 'traces/s', 'events/s', 's', 'service cores', 'postgres cores', 'load cores', 'other cores'],
    ...blocks,
    line('overall', r.overall),
  ]);
}

const rowsText = (rows: number[]) => {
  if (rows.length === 0) return '-';
  const lo = Math.min(...rows);
  const hi = Math.max(...rows);
  return lo === hi ? String(lo) : `${lo}–${hi}`;
};

export function queryTable(timings: QueryTiming[]): string {
  return table([
    ['query', 'p50 ms', 'p95 ms', 'max ms', 'rows', 'goal', ''],
    ...timings.map((t) => [
      t.name,
      f(t.p50, 1),
      f(t.p95, 1),
      f(t.max, 1),
      rowsText(t.rows),
      `p95 ≤ ${GOAL_MS}`,
      t.failures > 0 ? `${t.failures} FAILED` : t.p95 <= GOAL_MS ? 'met' : 'MISSED',
    ]),
  ]);
}

export function sizeTable(sizes: TableSize[], traces: number): string {
  const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
  const per = (bytes: number) => thousands(bytes / traces);
  const sum = (pick: (s: TableSize) => number) => sizes.reduce((n, s) => n + pick(s), 0);
  return table([
    ['table', 'table MB', 'indexes MB', 'bytes per trace'],
    ...sizes.map((s) => [s.table, mb(s.tableBytes), mb(s.indexBytes), per(s.tableBytes + s.indexBytes)]),
    ['all', mb(sum((s) => s.tableBytes)), mb(sum((s) => s.indexBytes)), per(sum((s) => s.tableBytes + s.indexBytes))],
  ]);
}

export function queryVerdicts(pass: string, timings: QueryTiming[]): Verdict[] {
  return timings.map((t) => ({
    target: pass,
    what: `${t.name} p95`,
    value: t.failures > 0 ? `${t.failures} failed: ${t.firstFailure}` : `${f(t.p95, 1)} ms`,
    goal: `≤ ${GOAL_MS} ms`,
    met: t.failures === 0 && t.p95 <= GOAL_MS,
  }));
}

export function ingestVerdicts(r: IngestResult): Verdict[] {
  const out: Verdict[] = [
    {
      target: 'ingestion',
      what: 'traces/s overall',
      value: thousands(r.overall.tracesPerSecond),
      goal: `≥ ${thousands(INGEST_GOAL)}`,
      met: r.overall.tracesPerSecond >= INGEST_GOAL,
    },
    {
      target: 'ingestion',
      what: 'batches refused',
      value: r.failedBatches === 0 ? '0' : `${r.failedBatches}, first: ${r.firstFailure}`,
      goal: '0',
      met: r.failedBatches === 0,
    },
  ];
  if (r.blocks.length >= 2) {
    const first = r.blocks[0].tracesPerSecond;
    const last = r.blocks[r.blocks.length - 1].tracesPerSecond;
    out.push({
      target: 'ingestion',
      what: 'last block vs first',
      value: `${last >= first ? '+' : ''}${f((last / first - 1) * 100, 0)}%`,
      goal: `≥ -${INGEST_DRIFT * 100}%`,
      met: last >= (1 - INGEST_DRIFT) * first,
    });
  }
  return out;
}

export function storedVerdict(stored: StoredRows, expected: StoredRows): Verdict {
  const text = (s: StoredRows) => `${s.traces} traces, ${s.observations} observations, ${s.scores} scores`;
  return {
    target: 'store',
    what: 'rows stored',
    value: text(stored),
    goal: text(expected),
    met:
      stored.traces === expected.traces &&
      stored.observations === expected.observations &&
      stored.scores === expected.scores,
  };
}
