// The embedded store (PGlite on its own thread): sized for living inside the gateway's process, and a fresh data
// directory is created, then served, by a new thread each time.
import t from 'tap';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite } from '../../src/store/pglite-database.ts';

const dir = mkdtempSync(join(tmpdir(), 'svc-embedded-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const settings = async (db: Awaited<ReturnType<typeof openPglite>>) =>
  (
    await db.query<{ name: string; setting: string; unit: string | null }>(
      `select name, setting, unit from pg_settings where name in ('shared_buffers', 'work_mem', 'wal_buffers') order by name`,
    )
  ).rows;

t.test('a fresh store is created and serves, with the embedded memory settings', async (t) => {
  const db = await openPglite(dir);
  t.ok(existsSync(join(dir, 'pglite', 'PG_VERSION')), 'initdb ran in the data directory');
  t.same(await settings(db), [
    { name: 'shared_buffers', setting: '2048', unit: '8kB' },
    { name: 'wal_buffers', setting: '128', unit: '8kB' },
    { name: 'work_mem', setting: '2048', unit: 'kB' },
  ]);
  await db.exec('create table kept (id int primary key, note text)');
  await db.query('insert into kept values ($1, $2)', [1, 'written by the first start']);
  await db.close();
});

t.test('reopened, the same rows and the same settings', async (t) => {
  const db = await openPglite(dir);
  t.same((await db.query('select id, note from kept')).rows, [{ id: 1, note: 'written by the first start' }]);
  t.equal((await settings(db))[0].setting, '2048');
  await db.close();
});
