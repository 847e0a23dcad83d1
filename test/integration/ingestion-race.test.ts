// Ingestion inserts the rows it found absent with a plain INSERT (no ON CONFLICT). A trace another writer stores
// between the batch's lookup and its insert (the REST API, which does not take ingestion's entity locks) fails that
// insert; the batch is then written entity by entity, each merged with what is stored by then: no event is refused
// and neither writer's fields are lost.
import t from 'tap';
import type { Database, Queryable } from '../../src/platform/store/database.ts';
import { processBatch } from '../../src/observability/ingestion/process-batch.ts';
import { insertTraces } from '../../src/platform/store/repos/trace-batch.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { listObservationsOfTrace } from '../../src/platform/store/repos/observations.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { seedProject, testDatabase } from '../helpers/store.ts';

const PROJECT = 'p';
const T0 = '2026-03-01T00:00:00.000Z';

/** The database, with `beforeInsert` run once, on another connection, just before the first plain trace insert. */
function racing(db: Database, beforeInsert: () => Promise<void>): { db: Database; raced: () => boolean } {
  let raced = false;
  const intercept = (q: Queryable): Queryable => ({
    query: async (sql, params, options) => {
      if (!raced && sql.startsWith('INSERT INTO traces') && !sql.includes('ON CONFLICT')) {
        raced = true;
        await beforeInsert();
      }
      return q.query(sql, params, options);
    },
    exec: (sql) => q.exec(sql),
  });
  return {
    db: { ...db, transaction: (work) => db.transaction((tx) => work(intercept(tx))) },
    raced: () => raced,
  };
}

const batch = [
  { id: 'ev-trace', type: 'trace-create', timestamp: T0, body: { id: 'tr', name: 'from-ingestion', timestamp: T0 } },
  {
    id: 'ev-span',
    type: 'span-create',
    timestamp: T0,
    body: { id: 'sp', traceId: 'tr', name: 'step', startTime: T0, endTime: '2026-03-01T00:00:01.000Z' },
  },
  { id: 'ev-other', type: 'trace-create', timestamp: T0, body: { id: 'other', name: 'neighbour', timestamp: T0 } },
];

t.test('a trace stored by another writer during the batch is merged, not refused', async (t) => {
  const store = await testDatabase(t, 'postgres');
  await seedProject(store, PROJECT);
  const { db, raced } = racing(store, () =>
    insertTraces(store, [
      { projectId: PROJECT, id: 'tr', status: 'completed', startTime: T0, source: 'api', userId: 'rest-user' },
    ]).then(() => undefined),
  );
  const result = await processBatch(db, PROJECT, batch, silentLogger);
  t.ok(raced(), 'the other writer ran between the lookup and the insert');
  t.same(result.errors, [], 'no event refused');
  t.same(
    result.successes.map((s) => s.id),
    batch.map((e) => e.id),
  );
  const trace = await getTrace(store, PROJECT, 'tr');
  t.equal(trace?.name, 'from-ingestion', "the batch's field is stored");
  t.equal(trace?.userId, 'rest-user', "the other writer's field is kept");
  t.equal((await getTrace(store, PROJECT, 'other'))?.name, 'neighbour', 'the neighbouring trace is stored');
  t.same(
    (await listObservationsOfTrace(store, PROJECT, 'tr')).map((o) => o.id),
    ['sp'],
  );
});
