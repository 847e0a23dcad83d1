// The dashboard's score list on a PostgreSQL store of 20,000 scores, analyzed as autovacuum leaves a table that has
// rows (never analyzed, the planner takes it for a few pages and sorts whatever it reads): a keyset page, deep or
// not, reads the time index in list order from the cursor on; a name filter reads the name index; the names the
// filter offers are found by a loose scan of the name index, one probe a name, never a read of every score.
import t from 'tap';
import { listScoreNames, listScoresWithoutTotal } from '../../src/platform/store/repos/scores.ts';
import { freshStoreWithProject } from '../helpers/generated-traces.ts';
import { describe, plansOf, readsInOrder } from '../helpers/query-plans.ts';
import { testDatabase } from '../helpers/store.ts';

const PROJECT = 'p';
const SCORES = 20_000;

t.test('the score list and its names read their indexes', async (t) => {
  const db = await testDatabase(t, 'postgres');
  await freshStoreWithProject(db, PROJECT);
  await db.query(
    `INSERT INTO scores (project_id, id, trace_id, name, data_type, value, source, timestamp)
     SELECT $1, 's-' || i, 'trace-' || (i % 500), 'name-' || (i % 20), 'NUMERIC', i % 10, 'API',
       timestamptz '2026-01-01' + i * interval '1 second'
     FROM generate_series(1, ${SCORES}) AS i`,
    [PROJECT],
  );
  await db.query('ANALYZE scores');
  const page = (f: Partial<Parameters<typeof listScoresWithoutTotal>[2]>) =>
    plansOf(db, (q) => listScoresWithoutTotal(q, PROJECT, { limit: 51, offset: 0, ...f }));

  readsInOrder(t, (await page({}))[0]!, 'scores_project_time', 'the first page');
  const deep = { timestamp: '2026-01-01T02:00:00Z', id: 's-7200' };
  readsInOrder(t, (await page({ after: deep }))[0]!, 'scores_project_time', 'a page after a cursor');
  readsInOrder(t, (await page({ name: 'name-3', after: deep }))[0]!, 'scores_project_name', 'a name, after a cursor');

  const [names] = await plansOf(db, (q) => listScoreNames(q, PROJECT, 500));
  t.ok(
    names!.nodes.some((n) => n['Index Name'] === 'scores_project_name'),
    `names: probes of the name index (${describe(names!)})`,
  );
  t.notOk(
    names!.nodes.some((n) => n['Node Type'] === 'Seq Scan' || n['Node Type'] === 'Sort'),
    'names: no scan or sort of every score',
  );
  t.same(
    await listScoreNames(db, PROJECT, 500),
    Array.from({ length: 20 }, (_, i) => `name-${i}`).sort(),
    'every name once, in order',
  );
});
