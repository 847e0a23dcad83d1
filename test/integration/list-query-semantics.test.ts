// What the list queries rewritten for their indexes still mean (docs/decisions.md "List queries"): a metadata filter,
// now a containment its GIN index serves, matches exactly what `metadata ->> key = value` matches; a session is
// created by its first trace (ties on trace id), found without grouping; one environment reads like a list of one.
// Both backends, on the repositories.
import t from 'tap';
import type { Database } from '../../src/platform/store/database.ts';
import { TRACE_FILTER_COLUMNS } from '../../src/platform/store/repos/filter-columns.ts';
import { listSessions } from '../../src/platform/store/repos/sessions.ts';
import { parseFilter } from '../../src/platform/store/repos/structured-filter.ts';
import { listTraces } from '../../src/platform/store/repos/traces.ts';
import { STORE_BACKENDS, testDatabase } from '../helpers/store.ts';

const PROJECT = 'p';

/** Metadata values of one key `v`, as JSON text, each on a trace of its own. */
const METADATA_VALUES = [
  '"a"',
  '"5"',
  '5',
  '5.0',
  'true',
  '12345678901234567890',
  '{"x": 1}',
  '[1, 2]',
  'null',
  '"it\'s"',
  '"%"',
];

const CASTS: Record<string, string> = { metadata: '::text::jsonb', start_time: '::timestamptz' };

async function insertTrace(db: Database, id: string, fields: Record<string, string>) {
  const columns = Object.keys(fields);
  await db.query(
    `INSERT INTO traces (project_id, id, ${columns.join(', ')})
     VALUES ($1, $2, ${columns.map((c, i) => `$${i + 3}${CASTS[c] ?? ''}`).join(', ')})`,
    [PROJECT, id, ...Object.values(fields)],
  );
}

for (const backend of STORE_BACKENDS) {
  t.test(`list query meaning on ${backend}`, async (t) => {
    const db = await testDatabase(t, backend);
    await db.exec(`INSERT INTO organizations (id, name) VALUES ('o', 'o');
      INSERT INTO projects (id, organization_id, name) VALUES ('${PROJECT}', 'o', 'p');`);
    const ids = (r: { data: { id: string }[] }) => r.data.map((x) => x.id).sort();

    t.test('metadata = and any of match what ->> reads', async (t) => {
      for (const [i, value] of METADATA_VALUES.entries())
        await insertTrace(db, `m${i}`, { start_time: `2026-01-01T00:00:0${i % 10}Z`, metadata: `{"v": ${value}}` });
      await insertTrace(db, 'm-none', { start_time: '2026-01-01T00:01:00Z', metadata: '{"w": "a"}' });
      const textOf = async (value: string) =>
        (
          await db.query<{ id: string }>(
            `SELECT id FROM traces WHERE project_id = $1 AND metadata ->> 'v' = $2 ORDER BY id`,
            [PROJECT, value],
          )
        ).rows.map((r) => r.id);
      const filtered = (conditions: unknown[]) =>
        listTraces(db, PROJECT, {
          conditions: parseFilter(JSON.stringify(conditions), TRACE_FILTER_COLUMNS),
          limit: 100,
          offset: 0,
        });
      const probes = ['a', '5', '5.0', 'true', '12345678901234567890', '{"x": 1}', '[1, 2]', "it's", '%', 'null', 'b'];
      for (const value of probes) {
        const expected = await textOf(value);
        const eq = await filtered([{ type: 'stringObject', column: 'metadata', key: 'v', operator: '=', value }]);
        t.same(ids(eq), expected, `= ${value}: ${expected.join(', ') || 'none'}`);
      }
      t.same(await textOf('5'), ['m1', 'm2'], 'the oracle: the string "5" and the number 5 read as 5; 5.0 does not');
      const anyOf = await filtered([
        { type: 'categoryOptions', column: 'metadata', key: 'v', operator: 'any of', value: ['a', 'true', '5.0'] },
      ]);
      t.same(ids(anyOf), ['m0', 'm3', 'm4'], 'any of');
      const noneOf = await filtered([
        { type: 'categoryOptions', column: 'metadata', key: 'v', operator: 'none of', value: ['a'] },
      ]);
      t.notOk(ids(noneOf).includes('m0'), 'none of is unchanged');
      t.ok(ids(noneOf).includes('m-none'), 'none of holds where the key is absent');
    });

    t.test('a session is created by its first trace, ties on trace id', async (t) => {
      await insertTrace(db, 's-b', { start_time: '2026-02-01T10:00:00Z', session_id: 'tie', environment: 'env-b' });
      await insertTrace(db, 's-a', { start_time: '2026-02-01T10:00:00Z', session_id: 'tie', environment: 'env-a' });
      await insertTrace(db, 's-c', { start_time: '2026-02-01T09:00:00Z', session_id: 'early', environment: 'env-c' });
      await insertTrace(db, 's-d', { start_time: '2026-02-01T12:00:00Z', session_id: 'early', environment: 'env-d' });
      await insertTrace(db, 's-e', { start_time: '2026-02-01T10:00:00Z', session_id: 'same-time', environment: 'e' });
      const page = await listSessions(db, PROJECT, { limit: 10, offset: 0 });
      t.same(
        page.data.map((x) => [x.id, x.createdAt, x.environment]),
        [
          ['tie', '2026-02-01T10:00:00.000Z', 'env-a'],
          ['same-time', '2026-02-01T10:00:00.000Z', 'e'],
          ['early', '2026-02-01T09:00:00.000Z', 'env-c'],
        ],
        'newest first, ties on session id (descending); createdAt and environment of the first trace',
      );
      t.equal(page.total, 3);
      const from = await listSessions(db, PROJECT, { from: '2026-02-01T09:30:00Z', limit: 10, offset: 0 });
      t.same(
        from.data.map((x) => x.id),
        ['tie', 'same-time'],
        'a session created before `from` is not listed, though later traces of it are after',
      );
      const env = await listSessions(db, PROJECT, { environments: ['env-b'], limit: 10, offset: 0 });
      t.same(env.data, [], "the environment is the first trace's");
      const second = await listSessions(db, PROJECT, { limit: 1, offset: 1 });
      t.same(
        [second.data.map((x) => x.id), second.total],
        [['same-time'], 3],
        'paged: the second session, the total counted past it',
      );
    });

    t.test('environment: one value or several', async (t) => {
      const one = await listTraces(db, PROJECT, { environments: ['env-a'], limit: 10, offset: 0 });
      t.same(ids(one), ['s-a']);
      const two = await listTraces(db, PROJECT, { environments: ['env-a', 'env-b'], limit: 10, offset: 0 });
      t.same(ids(two), ['s-a', 's-b']);
    });
  });
}
