// The dashboard's trace list (src/platform/store/repos/trace-page.ts) planned by PostgreSQL on a fresh store (20,000 traces, no
// ANALYZE), as list-query-plans.test.ts plans the other lists: ordered by time or latency, either way, on the first
// page and after a cursor, it reads its index in list order and stops at the page; filtered by user, session or name
// it reads that filter's index; a cost order or a level filter ranks the newest traces, found along the time index,
// each summed through observations_trace.
import t, { type Test } from 'tap';
import type { Database } from '../../src/platform/store/database.ts';
import { listTracePage, type TracePageQuery } from '../../src/platform/store/repos/trace-page.ts';
import { freshStoreWithProject, generateTraces } from '../helpers/generated-traces.ts';
import { describe, indexesOf, plansOf, readsInOrder, statement } from '../helpers/query-plans.ts';
import { testDatabase } from '../helpers/store.ts';

const PROJECT = 'p';
const TRACES = 20_000;

const pageOf = (q: Partial<TracePageQuery>) => (db: Parameters<typeof listTracePage>[0]) =>
  listTracePage(db, PROJECT, { order: 'time', direction: 'desc', limit: 50, offset: 0, ...q });

/** The page's ids and its total read `index` in list order; and the page after its cursor too. */
async function pagesRead(t: Test, db: Database, q: Partial<TracePageQuery>, index: string, what: string) {
  const first = await pageOf(q)(db);
  t.equal(first.data.length, q.limit ?? 50, `${what}: a full page`);
  t.ok(first.next, `${what}: a next page`);
  const planned = await plansOf(db, pageOf(q));
  readsInOrder(t, statement(planned, 'SELECT t.id'), index, `${what}, page`);
  readsInOrder(t, statement(planned, 'SELECT count(*)'), index, `${what}, total`);
  const after = await plansOf(db, pageOf({ ...q, after: first.next!, offset: 50 }));
  readsInOrder(t, statement(after, 'SELECT t.id'), index, `${what}, after a cursor`);
}

t.test('the trace list reads its indexes in order on a fresh PostgreSQL store', async (t) => {
  const db = await testDatabase(t, 'postgres');
  await freshStoreWithProject(db, PROJECT);
  await generateTraces(db, { projectId: PROJECT, count: TRACES, from: '2026-01-01T00:00:00Z' });

  await pagesRead(t, db, {}, 'traces_project_time', 'newest first');
  await pagesRead(t, db, { direction: 'asc' }, 'traces_project_time', 'oldest first');
  await pagesRead(t, db, { order: 'latency' }, 'traces_project_latency', 'slowest first');
  await pagesRead(t, db, { order: 'latency', direction: 'asc' }, 'traces_project_latency', 'fastest first');
  await pagesRead(
    t,
    db,
    { order: 'latency', minLatencyMs: 500, maxLatencyMs: 2000 },
    'traces_project_latency',
    'latency bounds, slowest first',
  );
  await pagesRead(t, db, { userId: 'user-42' }, 'traces_project_user_time', 'user');
  await pagesRead(t, db, { sessionId: 'gen-session-77', limit: 2 }, 'traces_project_session_time', 'session');
  await pagesRead(t, db, { name: 'name-3' }, 'traces_project_name_time', 'name');
  await pagesRead(t, db, { tags: ['tag-2'] }, 'traces_project_time', 'tag, no statistics');
  // A user's traces by latency: found through the user's index and sorted, not by walking the latency index.
  for (const start of ['SELECT t.id', 'SELECT count(*)']) {
    const p = statement(await plansOf(db, pageOf({ userId: 'user-42', order: 'latency' })), start);
    t.ok(indexesOf(p).includes('traces_project_user_time'), `user, slowest first (${start}): ${describe(p)}`);
    t.notOk(indexesOf(p).includes('traces_project_latency'), `user, slowest first (${start}): not the latency index`);
  }

  for (const [q, what] of [
    [{ order: 'cost' }, 'most expensive first'],
    [{ level: 'ERROR' }, 'level filter'],
    [{ minCost: 0.00005, order: 'latency' }, 'cost bound, by latency'],
  ] as const) {
    const planned = await plansOf(db, pageOf(q));
    for (const s of planned) {
      t.notOk(
        s.nodes.some((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] !== 'agents'),
        `${what}: no sequential scan (${describe(s)})`,
      );
      const ranking = s.sql.trimStart().startsWith('WITH recent');
      if (ranking)
        t.ok(
          indexesOf(s).includes('traces_project_time') &&
            indexesOf(s).every((i) => ['traces_project_time', 'observations_trace'].includes(i)),
          `${what}: the newest traces along the time index, their observations by trace (${describe(s)})`,
        );
    }
    t.ok(
      planned.some((s) => s.sql.trimStart().startsWith('WITH recent')),
      `${what}: the newest traces are ranked`,
    );
  }
});
