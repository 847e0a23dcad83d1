// `npm run bench -- --observability [--traces 100000]` (docs/performance.md "Observability at scale"): fills a fresh
// store with N traces of the issue-21 shape (bench/observability/data-set.ts) — through POST /api/public/ingestion,
// or, above GENERATE_ABOVE traces or with --generate, one trace through the API and the rest written with SQL as
// ingestion writes them — then times every read the issue sets a goal for over HTTP, first on the fresh store (no
// column statistics: autovacuum may vacuum but not analyze), then after VACUUM ANALYZE, and prints bytes per trace.
import { availableParallelism, cpus } from 'node:os';
import { f, verdictTable, type Verdict } from './report.ts';
import { otherLoad } from './processes.ts';
import { redact } from './targets.ts';
import {
  holdOffAutoAnalyze,
  statisticsState,
  storedRows,
  tableSizes,
  vacuumAnalyze,
  withBenchStore,
  type BenchStore,
  type StoredRows,
  type TableSize,
} from './observability/bench-store.ts';
import { cpuBetween, cpuMark, type CpuSplit } from './observability/cpu.ts';
import { OBSERVATIONS, type DataSet } from './observability/data-set.ts';
import { generate, type GenerateProgress } from './observability/generate.ts';
import { BATCH_TRACES, ingest, type IngestResult } from './observability/ingest.ts';
import { queryCases, timeQueries, type QueryTiming } from './observability/queries.ts';
import { sweepOldestDay, type RetentionResult } from './observability/retention.ts';
import {
  ingestTable,
  ingestVerdicts,
  queryTable,
  queryVerdicts,
  sizeTable,
  storedVerdict,
} from './observability/report.ts';

/** Above this many traces the store is filled with SQL unless told otherwise: the API would take hours. */
export const GENERATE_ABOVE = 2_000_000;
export const BLOCK = 100_000;
/** Cores used by other processes above which a pass is marked noisy (as the hot-path bench does). */
const NOISY_CORES = 0.1;

export interface ObservabilityOptions {
  traces: number;
  /** Fill with SQL whatever the size. */
  generate?: boolean;
  senders: number;
  /** Timed requests per query, after `warmUp` untimed ones. */
  requests: number;
  warmUp: number;
  /** Traces per ingestion block reported (default BLOCK). */
  block?: number;
  postgres: string;
  /** Node flags of the service process. */
  nodeFlags?: readonly string[];
  /** Environment variables it starts with, beside this process's. */
  nodeEnv?: Record<string, string>;
  log(line: string): void;
}

export interface Pass {
  label: string;
  statistics: string;
  timings: QueryTiming[];
  /** Where the CPU went while the queries ran. */
  cpu: CpuSplit;
  sizes: TableSize[];
}

export interface ObservabilityResult {
  set: DataSet;
  filledWith: 'ingestion' | 'sql';
  ingest?: IngestResult;
  generated?: GenerateProgress;
  stored: StoredRows;
  fresh: Pass;
  vacuumSeconds: number;
  analyzed: Pass;
  /** The oldest day deleted by the service's retention sweep, after the reads. */
  retention: RetentionResult;
  verdicts: Verdict[];
  seconds: number;
}

async function fill(store: BenchStore, o: ObservabilityOptions, set: DataSet) {
  const block = o.block ?? BLOCK;
  if (!(o.generate || o.traces > GENERATE_ABOVE)) {
    o.log(`ingesting ${set.traces} traces, ${BATCH_TRACES} per request, ${o.senders} senders:`);
    const r = await ingest(store, {
      set,
      from: 0,
      to: set.traces,
      senders: o.senders,
      block,
      onBlock: (b) => o.log(`  ${b.traces} traces: ${Math.round(b.tracesPerSecond)} traces/s`),
    });
    o.log(`\n${ingestTable(r)}\n`);
    return { ingest: r };
  }
  o.log(`ingesting trace 0 as the template, then writing traces 1–${set.traces - 1} with SQL:`);
  const template = await ingest(store, { set, from: 0, to: 1, senders: 1, block });
  if (template.failedBatches > 0) throw new Error(`the template trace was refused: ${template.firstFailure}`);
  const generated = await generate(store.client, store.db, set, { from: 1, to: set.traces }, (p) =>
    o.log(`  ${p.traces} traces in ${p.seconds.toFixed(0)} s`),
  );
  o.log(`  ${Math.round(generated.traces / generated.seconds)} traces/s\n`);
  return { generated };
}

async function pass(store: BenchStore, o: ObservabilityOptions, set: DataSet, label: string): Promise<Pass> {
  const statistics = await statisticsState(store.client);
  const before = await cpuMark(store);
  const timings = await timeQueries(store.service, queryCases(set), o);
  const cpu = cpuBetween(before, await cpuMark(store));
  const sizes = await tableSizes(store.client);
  o.log(`${label} (${statistics}); ${o.warmUp} warm-up and ${o.requests} timed requests each, one at a time:\n`);
  o.log(`${queryTable(timings)}\n`);
  o.log(
    `cores used meanwhile: service ${f(cpu.serviceCores, 2)}, PostgreSQL backends of the bench ` +
      `${f(cpu.postgresCores, 2)}, the rest of the machine ${f(cpu.otherCores, 2)}` +
      (cpu.otherCores > NOISY_CORES ? ' (NOTE: other load; expect noise)' : '') +
      `\n\n${sizeTable(sizes, set.traces)}\n`,
  );
  return { label, statistics, timings, cpu, sizes };
}

function retentionText(r: RetentionResult, traces: number): string {
  return (
    `retention: the service's sweep with the project's retention at 29 days deleted ${r.traces} traces (the oldest ` +
    `day) in ${f(r.cpu.seconds, 1)} s, ${Math.round(r.tracesPerSecond)} traces/s; cores: PostgreSQL backends ` +
    `${f(r.cpu.postgresCores, 2)}, the rest of the machine ${f(r.cpu.otherCores, 2)}; WAL ` +
    `${Math.round(r.walBytesPerTrace)} bytes per trace deleted; VACUUM of the three tables after it ` +
    `${f(r.vacuumSeconds, 1)} s. The tables after (the space is kept for reuse):\n\n` +
    `${sizeTable(r.sizes, traces)}\n`
  );
}

export async function runObservability(o: ObservabilityOptions): Promise<ObservabilityResult> {
  const t0 = performance.now();
  const set: DataSet = { traces: o.traces, end: Date.now() };
  const busy = await otherLoad([process.pid], availableParallelism());
  o.log(
    `svc observability bench: node ${process.version}, ${availableParallelism()} cores ` +
      `(${cpus()[0]?.model.trim() ?? 'unknown CPU'}), not pinned; PostgreSQL ${redact(o.postgres)} ` +
      `(a database of its own, dropped after); other processes used ${f(busy, 2)} cores as the run started` +
      `${busy > NOISY_CORES ? ' (NOTE: expect noise)' : ''}\n`,
  );
  const run = await withBenchStore(o, async (store) => {
    await holdOffAutoAnalyze(store.client);
    const filled = await fill(store, o, set);
    const stored = await storedRows(store.client);
    const fresh = await pass(store, o, set, 'fresh store');
    await holdOffAutoAnalyze(store.client, true);
    const v0 = performance.now();
    await vacuumAnalyze(store.client);
    const vacuumSeconds = (performance.now() - v0) / 1000;
    o.log(`VACUUM ANALYZE: ${vacuumSeconds.toFixed(1)} s\n`);
    const analyzed = await pass(store, o, set, 'after VACUUM ANALYZE');
    const retention = await sweepOldestDay(store, set);
    o.log(retentionText(retention, set.traces));
    return { ...filled, stored, fresh, vacuumSeconds, analyzed, retention };
  });
  const expected = { traces: set.traces, observations: set.traces * OBSERVATIONS.length, scores: set.traces };
  const verdicts = [
    ...(run.ingest ? ingestVerdicts(run.ingest) : []),
    storedVerdict(run.stored, expected),
    ...queryVerdicts('fresh store', run.fresh.timings),
    ...queryVerdicts('analyzed', run.analyzed.timings),
  ];
  const seconds = (performance.now() - t0) / 1000;
  o.log(`${verdictTable(verdicts)}\n\nbench time ${seconds.toFixed(0)} s`);
  return { set, filledWith: run.ingest ? 'ingestion' : 'sql', ...run, verdicts, seconds };
}
