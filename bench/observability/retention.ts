// Retention on the filled store, as the service runs it: the project's retention set to 29 days and one run of the
// service's own sweep (src/platform/store/retention-sweep.ts), which deletes the oldest of the set's 30 days in batches of
// 1,000 traces with their observations and scores. Measured: traces deleted per second, the cores it took, the WAL it
// wrote per trace, the tables' bytes after (a DELETE leaves space for reuse; it does not shrink the files), and the
// VACUUM that makes the space reusable: it reads every index of each table whatever was deleted, which is the cost
// that grows with the store.
import { RetentionSweep } from '../../src/platform/store/retention-sweep.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { TRACE_TABLES, tableSizes, type BenchStore, type TableSize } from './bench-store.ts';
import { cpuBetween, cpuMark, type CpuSplit } from './cpu.ts';
import { PROJECT_ID, type DataSet } from './data-set.ts';

const RETENTION_DAYS = 29;

export interface RetentionResult {
  traces: number;
  tracesPerSecond: number;
  cpu: CpuSplit;
  walBytesPerTrace: number;
  sizes: TableSize[];
  /** VACUUM of the three tables after the sweep. */
  vacuumSeconds: number;
}

async function walPosition(store: BenchStore): Promise<string> {
  return (await store.client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn;
}

export async function sweepOldestDay(store: BenchStore, set: DataSet): Promise<RetentionResult> {
  await store.client.query('UPDATE projects SET retention_days = $1 WHERE id = $2', [RETENTION_DAYS, PROJECT_ID]);
  const wal = await walPosition(store);
  const before = await cpuMark(store);
  const traces = await new RetentionSweep(store.db, silentLogger, () => set.end).runOnce();
  const cpu = cpuBetween(before, await cpuMark(store));
  const walBytes = await store.client.query<{ bytes: string }>(
    'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::text AS bytes',
    [wal],
  );
  const v0 = performance.now();
  await store.client.query(`VACUUM ${TRACE_TABLES.join(', ')}`);
  const vacuumSeconds = (performance.now() - v0) / 1000;
  return {
    traces,
    tracesPerSecond: traces / cpu.seconds,
    cpu,
    walBytesPerTrace: Number(walBytes.rows[0].bytes) / Math.max(1, traces),
    sizes: await tableSizes(store.client),
    vacuumSeconds,
  };
}
