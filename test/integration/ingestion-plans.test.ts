// The statements an ingestion batch runs, planned by PostgreSQL on a fresh store (rows bulk-loaded, no ANALYZE): the
// stored rows a batch merges with are found by primary key, never by reading the project's traces or observations,
// whose number grows with the store (docs/performance.md "Ingestion: where PostgreSQL spent its time"). The batch is a
// real one, written through processBatch; its SQL is captured and explained with the parameters it ran with.
import t from 'tap';
import type { Database, Queryable } from '../../src/platform/store/database.ts';
import { processBatch } from '../../src/observability/ingestion/process-batch.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { testDatabase } from '../helpers/store.ts';
import { freshStoreWithProject } from '../helpers/generated-traces.ts';

const PROJECT = 'p';
/** Enough rows that reading the project's rows costs more than the batch (the planner's old choice on this store). */
const STORED_TRACES = 10_000;
const BATCH_TRACES = 100;
const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const flatten = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(flatten)];

interface Ran {
  sql: string;
  params?: readonly unknown[];
}

interface RowWrites {
  relname: string;
  inserted: number;
  updated: number;
}

/** Rows inserted and updated in the trace tables by the connection's transactions whose counts are not yet flushed. */
async function rowWrites(tx: Queryable): Promise<RowWrites[]> {
  const r = await tx.query<{ relname: string; n_tup_ins: unknown; n_tup_upd: unknown }>(
    `SELECT relname, n_tup_ins, n_tup_upd FROM pg_stat_xact_user_tables
     WHERE relname IN ('traces', 'observations', 'scores') ORDER BY relname`,
  );
  return r.rows.map((row) => ({
    relname: row.relname,
    inserted: Number(row.n_tup_ins),
    updated: Number(row.n_tup_upd),
  }));
}

/** The database with every statement of its transactions recorded, and the rows each transaction wrote. */
function recording(db: Database, ran: Ran[], writes: RowWrites[][]): Database {
  const record = (q: Queryable): Queryable => ({
    query: (sql, params, options) => {
      ran.push({ sql, params });
      return q.query(sql, params, options);
    },
    exec: (sql) => q.exec(sql),
  });
  return {
    ...record(db),
    kind: db.kind,
    transaction: (work) =>
      db.transaction(async (tx) => {
        const before = await rowWrites(tx);
        const result = await work(record(tx));
        writes.push(
          (await rowWrites(tx)).map((w, i) => ({
            relname: w.relname,
            inserted: w.inserted - before[i].inserted,
            updated: w.updated - before[i].updated,
          })),
        );
        return result;
      }),
    close: () => db.close(),
  };
}

/** The five events of trace i: a trace, two spans, a generation the service prices, a score. */
function traceEvents(i: number) {
  const traceId = `new-${i}`;
  const event = (type: string, body: Record<string, unknown>) => ({
    id: `ev-${type}-${i}`,
    type,
    timestamp: at(i),
    body,
  });
  const observation = (k: number, extra: Record<string, unknown>) => ({
    id: `new-${i}-${k}`,
    traceId,
    name: `step-${k}`,
    startTime: at(i + k),
    endTime: at(i + 100),
    input: { text: 'question' },
    output: { text: 'answer' },
    ...extra,
  });
  return [
    event('trace-create', { id: traceId, timestamp: at(i), name: 'chat', userId: 'u', tags: ['a'], input: 'q' }),
    event('span-create', observation(0, {})),
    event('span-create', observation(1, {})),
    event('generation-create', observation(2, { model: 'gpt-4o-mini', usageDetails: { input: 100, output: 20 } })),
    event('score-create', { id: `score-${i}`, traceId, name: 'quality', value: 1 }),
  ];
}

t.test('an ingestion batch finds the rows it merges by primary key on a fresh PostgreSQL store', async (t) => {
  const db = await testDatabase(t, 'postgres');
  await freshStoreWithProject(db, PROJECT);
  await db.exec(`INSERT INTO traces (project_id, id, name, status, start_time, end_time, source)
      SELECT '${PROJECT}', 'stored-' || i, 'chat', 'completed', timestamptz '2026-01-01' + i * interval '1 s',
        timestamptz '2026-01-01' + i * interval '1 s' + interval '1 hour', 'ingestion'
      FROM generate_series(1, ${STORED_TRACES}) i;
    INSERT INTO observations (project_id, id, trace_id, type, start_time)
      SELECT '${PROJECT}', 'stored-' || i || '-' || k, 'stored-' || i, 'SPAN',
        timestamptz '2026-01-01' + i * interval '1 s'
      FROM generate_series(1, ${STORED_TRACES}) i, generate_series(0, 2) k;`);
  const stats = await db.query<{ n: unknown }>(
    `SELECT count(*) AS n FROM pg_stats WHERE tablename IN ('traces', 'observations', 'scores')`,
  );
  t.equal(Number(stats.rows[0].n), 0, 'no statistics: the planner knows nothing of the rows');

  const batch = Array.from({ length: BATCH_TRACES }, (_, i) => traceEvents(i)).flat();
  // Stored rows merged too: a stored observation ended (so its trace ends later), a stored trace renamed.
  batch.push(
    { id: 'ev-end', type: 'span-update', timestamp: at(0), body: { id: 'stored-7-1', endTime: at(5) } },
    { id: 'ev-rename', type: 'trace-create', timestamp: at(0), body: { id: 'stored-9', name: 'renamed' } },
  );
  const ran: Ran[] = [];
  const writes: RowWrites[][] = [];
  const result = await processBatch(recording(db, ran, writes), PROJECT, batch, silentLogger);
  t.equal(result.errors.length, 0, 'no event refused');
  t.equal(result.successes.length, batch.length, 'every event stored');
  t.same(
    writes,
    [
      [
        { relname: 'observations', inserted: 3 * BATCH_TRACES, updated: 1 },
        { relname: 'scores', inserted: BATCH_TRACES, updated: 0 },
        // stored-9 renamed; stored-7 ends later, with its observation.
        { relname: 'traces', inserted: BATCH_TRACES, updated: 2 },
      ],
    ],
    'one transaction; each row written once: the new ones inserted (priced generations too), the merged ones updated',
  );

  const stored = await db.query<{ id: string; name: string | null; cost_model_id: string | null; end_time: Date }>(
    `SELECT id, name, cost_model_id, end_time FROM observations
       WHERE project_id = $1 AND id IN ('new-3-2', 'stored-7-1')
     UNION ALL SELECT id, name, null, end_time FROM traces WHERE project_id = $1 AND id = 'stored-9' ORDER BY id`,
    [PROJECT],
  );
  t.match(
    stored.rows,
    [
      { id: 'new-3-2', name: 'step-2', cost_model_id: /gpt-4o-mini/ },
      { id: 'stored-7-1', end_time: new Date(at(5)) },
      { id: 'stored-9', name: 'renamed' },
    ],
    'the new generation priced, the stored rows merged',
  );

  const tables = new Set(['traces', 'observations', 'scores']);
  let explained = 0;
  for (const { sql, params } of ran) {
    if (!/\b(traces|observations|scores)\b/.test(sql)) continue;
    const r = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
    const scans = flatten(r.rows[0]['QUERY PLAN'][0].Plan).filter(
      (n) => n['Node Type'].endsWith('Scan') && tables.has(n['Relation Name'] ?? ''),
    );
    const wide = scans.filter(
      (n) =>
        !(n['Node Type'] === 'Tid Scan' || (n['Node Type'] === 'Index Scan' && n['Index Name']?.endsWith('_pkey'))),
    );
    t.same(
      wide.map((n) => `${n['Node Type']} on ${n['Relation Name']}${n['Index Name'] ? ` (${n['Index Name']})` : ''}`),
      [],
      `only primary-key probes: ${sql.replace(/\s+/g, ' ').slice(0, 80)}`,
    );
    explained++;
  }
  t.ok(explained >= 4, `the batch's lookups and writes were explained (${explained} statements)`);
});
