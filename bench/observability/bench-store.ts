// The store the observability bench fills: a scratch PostgreSQL database with the service started on it, a client of
// the bench's own (no statement time limit: generating rows and VACUUM take long), and the figures read from it —
// stored rows, bytes per trace, the planner's statistics.
import pg from 'pg';
import type { Database } from '../../src/platform/store/database.ts';
import { scratchPostgres } from '../scratch-database.ts';
import { startBenchService, type BenchService } from './service.ts';

/** The tables ingestion writes a trace into. */
export const TRACE_TABLES = ['traces', 'observations', 'scores'] as const;

export interface BenchStore {
  service: BenchService;
  /** The store's own database interface (for the service's model matcher). */
  db: Database;
  client: pg.Client;
}

let stores = 0;

/** Runs `work` on a fresh database and service; both are gone afterwards. */
export async function withBenchStore<T>(
  o: { postgres: string; nodeFlags?: readonly string[]; nodeEnv?: Record<string, string> },
  work: (store: BenchStore) => Promise<T>,
): Promise<T> {
  const scratch = await scratchPostgres(o.postgres, `svc_bench_observability_${stores++}`);
  const client = new pg.Client({ connectionString: scratch.url });
  let service: BenchService | undefined;
  try {
    await client.connect();
    service = await startBenchService(scratch.url, o.nodeFlags, o.nodeEnv);
    return await work({ service, db: scratch.db, client });
  } finally {
    await service?.stop();
    await client.end();
    await scratch.drop();
  }
}

/**
 * The relations holding each trace table's rows (`name`, its position `n`, `rel`): the table itself, or the leaves of
 * its partition tree (pg_partition_tree lists nothing for a table that is not partitioned). Takes $1, TRACE_TABLES.
 */
const LEAVES = `WITH tables AS (SELECT name, n FROM unnest($1::text[]) WITH ORDINALITY AS t(name, n))
  SELECT t.name, t.n, t.name::regclass AS rel FROM tables t JOIN pg_class c ON c.oid = t.name::regclass
    WHERE c.relkind = 'r'
  UNION ALL
  SELECT t.name, t.n, p.relid FROM tables t, LATERAL pg_partition_tree(t.name::regclass) AS p WHERE p.isleaf`;

/** The relations holding the trace tables' rows, quoted. */
async function leaves(client: pg.Client): Promise<string[]> {
  const r = await client.query<{ rel: string }>(`SELECT rel::text FROM (${LEAVES}) l`, [TRACE_TABLES]);
  return r.rows.map((row) => row.rel);
}

/**
 * Keeps autovacuum from analyzing the trace tables (it still vacuums them), so the first queries run as on a store
 * whose statistics have not been gathered yet; `resume` gives the tables back to autovacuum.
 */
export async function holdOffAutoAnalyze(client: pg.Client, resume = false): Promise<void> {
  for (const rel of await leaves(client))
    await client.query(
      resume
        ? `ALTER TABLE ${rel} RESET (autovacuum_analyze_threshold)`
        : `ALTER TABLE ${rel} SET (autovacuum_analyze_threshold = 2147483647)`,
    );
}

export async function vacuumAnalyze(client: pg.Client): Promise<void> {
  await client.query(`VACUUM ANALYZE ${TRACE_TABLES.join(', ')}`);
}

/** What the planner knows of the trace tables, in words. */
export async function statisticsState(client: pg.Client): Promise<string> {
  const rels = await leaves(client);
  const r = await client.query<{ analyzed: string; vacuums: string }>(
    `SELECT (SELECT count(DISTINCT starelid) FROM pg_statistic WHERE starelid = ANY($1::regclass[])) AS analyzed,
       (SELECT COALESCE(sum(vacuum_count + autovacuum_count), 0) FROM pg_stat_user_tables
         WHERE relid = ANY($1::regclass[])) AS vacuums`,
    [rels],
  );
  const { analyzed, vacuums } = r.rows[0];
  return `column statistics on ${analyzed} of ${rels.length} trace tables; ${vacuums} vacuums of them so far`;
}

export interface StoredRows {
  traces: number;
  observations: number;
  scores: number;
}

export async function storedRows(client: pg.Client): Promise<StoredRows> {
  const r = await client.query<Record<keyof StoredRows, string>>(
    `SELECT (SELECT count(*) FROM traces) AS traces, (SELECT count(*) FROM observations) AS observations,
       (SELECT count(*) FROM scores) AS scores`,
  );
  const row = r.rows[0];
  return { traces: Number(row.traces), observations: Number(row.observations), scores: Number(row.scores) };
}

export interface TableSize {
  table: string;
  /** Heap, TOAST, free-space and visibility maps. */
  tableBytes: number;
  indexBytes: number;
}

export async function tableSizes(client: pg.Client): Promise<TableSize[]> {
  const r = await client.query<{ name: string; table_bytes: string; index_bytes: string }>(
    `SELECT name, sum(pg_table_size(rel)) AS table_bytes, sum(pg_indexes_size(rel)) AS index_bytes
     FROM (${LEAVES}) l GROUP BY name, n ORDER BY n`,
    [TRACE_TABLES],
  );
  return r.rows.map((row) => ({
    table: row.name,
    tableBytes: Number(row.table_bytes),
    indexBytes: Number(row.index_bytes),
  }));
}
