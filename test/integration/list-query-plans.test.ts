// The list queries the repositories build, planned by PostgreSQL on a fresh store (20,000 traces, no ANALYZE): each
// documented filter reads the index meant for it, in list order, never the whole table (docs/decisions.md "List
// queries: time limits and totals"), and traces asked for by id are each found by primary key. The SQL is captured from
// the repository calls and explained with the settings it ran with. After ANALYZE, a rare tag or metadata value is
// found through its GIN index.
import t, { type Test } from 'tap';
import type { Database } from '../../src/platform/store/database.ts';
import { TRACE_FILTER_COLUMNS } from '../../src/platform/store/repos/filter-columns.ts';
import { listObservations, listObservationsOfTrace } from '../../src/platform/store/repos/observations.ts';
import { listScoresOfTrace } from '../../src/platform/store/repos/scores.ts';
import { listSessions } from '../../src/platform/store/repos/sessions.ts';
import { parseFilter } from '../../src/platform/store/repos/structured-filter.ts';
import { getTrace, getTracesByIds, listTraces, type TraceFilter } from '../../src/platform/store/repos/traces.ts';
import { freshStoreWithProject, generateTraces, RARE } from '../helpers/generated-traces.ts';
import {
  describe,
  indexesOf,
  lastStatement,
  plansOf,
  readsInOrder,
  statement,
  type Planned,
} from '../helpers/query-plans.ts';
import { testDatabase } from '../helpers/store.ts';

const PROJECT = 'p';
const TRACES = 20_000;
const FROM = '2026-01-01T00:00:00Z';

/** The statement finds each trace by its primary key: traces_pkey probed, no other index or scan of the traces. */
function probesEachTrace(t: Test, p: Planned, what: string) {
  t.same(
    p.nodes.filter((n) => n['Index Name']?.startsWith('traces_')).map((n) => `${n['Node Type']} (${n['Index Name']})`),
    ['Index Scan (traces_pkey)'],
    `${what}: one primary-key probe per trace (${describe(p)})`,
  );
  t.notOk(
    p.nodes.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'traces'),
    `${what}: no sequential scan`,
  );
}

/** A trace list reads `index` in order, for its page and for its total. */
async function traceListReads(t: Test, db: Database, f: Partial<TraceFilter>, index: string, what: string) {
  const planned = await plansOf(db, (q) => listTraces(q, PROJECT, { withLinkedIds: true, limit: 50, offset: 0, ...f }));
  readsInOrder(t, statement(planned, 'SELECT t.id'), index, `${what}, page`);
  readsInOrder(t, statement(planned, 'SELECT count(*)'), index, `${what}, total`);
}

const metadataFilter = (customer: string) =>
  parseFilter(
    JSON.stringify([{ type: 'stringObject', column: 'metadata', key: 'customer', operator: '=', value: customer }]),
    TRACE_FILTER_COLUMNS,
  );

t.test('list queries on a fresh PostgreSQL store read their indexes in order', async (t) => {
  const db = await testDatabase(t, 'postgres');
  await freshStoreWithProject(db, PROJECT);
  await generateTraces(db, { projectId: PROJECT, count: TRACES, from: FROM });
  const stats = await db.query<{ n: unknown }>(
    `SELECT count(*) AS n FROM pg_stats WHERE tablename IN ('traces', 'observations', 'scores')`,
  );
  t.equal(Number(stats.rows[0].n), 0, 'no statistics: the planner knows nothing of the rows');

  await traceListReads(t, db, {}, 'traces_project_time', 'page 1');
  await traceListReads(t, db, { offset: 4950 }, 'traces_project_time', 'page 100');
  await traceListReads(
    t,
    db,
    { orderBy: { column: 'startTime', direction: 'asc' } },
    'traces_project_time',
    'oldest first',
  );
  await traceListReads(t, db, { name: 'name-3' }, 'traces_project_name_time', 'name');
  await traceListReads(t, db, { userId: 'user-42' }, 'traces_project_user_time', 'userId');
  await traceListReads(t, db, { sessionId: 'gen-session-77' }, 'traces_project_session_time', 'sessionId');
  await traceListReads(
    t,
    db,
    { from: '2026-01-01T02:00:00Z', to: '2026-01-01T03:00:00Z' },
    'traces_project_time',
    'time range',
  );
  await traceListReads(t, db, { environments: ['staging'] }, 'traces_project_environment_time', 'environment');
  await traceListReads(t, db, { status: 'completed', withLinkedIds: false }, 'traces_project_status_time', 'status');
  // Without statistics, tags and metadata are read in time order: right for the common values they usually hold.
  await traceListReads(t, db, { tags: ['tag-2'] }, 'traces_project_time', 'tags, no statistics');
  await traceListReads(
    t,
    db,
    { conditions: metadataFilter('customer-3') },
    'traces_project_time',
    'metadata, no statistics',
  );

  // Traces by id, as many as a page may hold: the traces of a v2 observations page, a trace list's page.
  const ids = Array.from({ length: 300 }, (_, i) => `gen-${TRACES - i * 7}`);
  const [byIds] = await plansOf(db, (q) => getTracesByIds(q, PROJECT, ids));
  probesEachTrace(t, byIds, 'traces by id');
  const bigPage = await plansOf(db, (q) => listTraces(q, PROJECT, { withLinkedIds: true, limit: 300, offset: 0 }));
  probesEachTrace(t, statement(bigPage, 'SELECT t.* FROM unnest'), 'the rows of a page of 300 traces');

  const v2 = await plansOf(db, (q) => listObservations(q, PROJECT, { countTotal: false, limit: 51, offset: 0 }));
  t.equal(v2.length, 1, 'v2 observations: one statement, no total');
  readsInOrder(t, v2[0], 'observations_project_time', 'v2 observations');
  const cursor = await plansOf(db, (q) =>
    listObservations(q, PROJECT, {
      countTotal: false,
      after: { startTime: '2026-01-01T01:00:00.010Z', id: 'gen-3600-1' },
      limit: 51,
      offset: 0,
    }),
  );
  readsInOrder(t, cursor[0], 'observations_project_time', 'v2 observations after a cursor');
  const v1 = await plansOf(db, (q) => listObservations(q, PROJECT, { limit: 50, offset: 0 }));
  readsInOrder(t, statement(v1, 'SELECT count(*)'), 'observations_project_time', 'v1 observations, total');

  const sessions = await plansOf(db, (q) => listSessions(q, PROJECT, { limit: 50, offset: 0 }));
  for (const [start, what] of [
    ['SELECT t.project_id', 'sessions, page'],
    ['SELECT count(*)', 'sessions, total'],
  ]) {
    const p = statement(sessions, start);
    readsInOrder(t, p, 'traces_project_time', what);
    t.ok(indexesOf(p).includes('traces_project_session_time'), `${what}: first traces found by the session index`);
  }

  const one = await plansOf(db, async (q) => {
    await getTrace(q, PROJECT, 'gen-4242');
    await listObservationsOfTrace(q, PROJECT, 'gen-4242');
    await listScoresOfTrace(q, PROJECT, 'gen-4242');
  });
  t.same(
    one.map((p) => indexesOf(p).filter((i) => !i.startsWith('agents') && !i.startsWith('prompts'))),
    [['traces_pkey', 'observations_trace'], ['observations_trace'], ['scores_project_trace', 'traces_pkey']],
    'one trace: by primary key, its observations and scores by trace',
  );
  for (const p of one) t.notOk(p.nodes.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] !== 'agents'));

  // A rare tag or metadata value: its read in time order outlasts the probe (1 ms here, TIME_ORDER_PROBE_MS in use),
  // and the list is read again as the planner chooses: with statistics, through the value's GIN index. (Without them
  // the planner's choice is a guess; docs/decisions.md "List queries".)
  await db.exec('ANALYZE traces');
  const rare: [Partial<TraceFilter>, string, string][] = [
    [{ tags: [RARE.tag] }, 'traces_tags', 'rare tag'],
    [{ conditions: metadataFilter(RARE.customer) }, 'traces_metadata', 'rare metadata value'],
  ];
  for (const [f, index, what] of rare) {
    const planned = await plansOf(db, (q) => listTraces(q, PROJECT, { limit: 50, offset: 0, ...f }, 1));
    t.equal(planned.length, 4, `${what}: the probe's count, cancelled, then count, ids and rows`);
    for (const start of ['SELECT count(*)', 'SELECT t.id']) {
      const p = lastStatement(planned, start);
      t.ok(
        p.nodes.some((n) => n['Node Type'] === 'Bitmap Index Scan' && n['Index Name'] === index),
        `${what} (${start}): bitmap scan of ${index} (${describe(p)})`,
      );
    }
  }
  // A common value fills its page within the probe: read in time order, once.
  const common = await plansOf(db, (q) => listTraces(q, PROJECT, { limit: 50, offset: 0, tags: ['tag-2'] }));
  t.equal(common.length, 3, 'a common tag, analyzed: count, ids and rows, once');
  readsInOrder(t, statement(common, 'SELECT t.id'), 'traces_project_time', 'a common tag, analyzed');
});
