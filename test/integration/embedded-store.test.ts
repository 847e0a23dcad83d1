// The embedded store (PGlite on its own thread): sized for living inside the gateway's process, a fresh data
// directory is created, then served, by a new thread each time, and its WAL is checkpointed while it is open.
import t from 'tap';
import { lstatSync, mkdtempSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite, pgliteOverPort } from '../../src/platform/store/pglite-database.ts';
import { waitFor } from '../helpers/wait-for.ts';

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

t.test('a second client over a port (as the trace writer thread has): its own queries and transactions', async (t) => {
  const db = await openPglite(dir);
  t.teardown(() => db.close());
  const other = pgliteOverPort(await db.connect());
  t.teardown(() => other.close());
  await db.exec('create table clients (who text, n int)');
  // Both clients open transactions at once: the store runs one at a time, each with an id of its own.
  const write = (client: typeof other, who: string) =>
    client.transaction(async (tx) => {
      for (let n = 1; n <= 3; n++) await tx.query('insert into clients values ($1, $2)', [who, n]);
      return who;
    });
  t.same(await Promise.all([write(db, 'main'), write(other, 'port'), write(db, 'main-2')]), ['main', 'port', 'main-2']);
  const rolledBack = other.transaction(async (tx) => {
    await tx.query('insert into clients values ($1, $2)', ['never', 1]);
    throw new Error('changed its mind');
  });
  await t.rejects(rolledBack, /changed its mind/);
  const rows = await other.query<{ who: string; count: number }>(
    'select who, count(*)::int as count from clients group by who order by who',
  );
  t.same(rows.rows, [
    { who: 'main', count: 3 },
    { who: 'main-2', count: 3 },
    { who: 'port', count: 3 },
  ]);
  await t.rejects(other.query('select * from no_such_table'), { code: '42P01' }, 'errors keep their SQLSTATE');
});

/** Bytes the files under `path` use on disk. */
function diskUsage(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.blocks * 512;
  return readdirSync(path).reduce((sum, name) => sum + diskUsage(join(path, name)), stat.blocks * 512);
}

t.test('while open, the WAL is checkpointed once 128 MB are written, so pg_wal does not keep growing', async (t) => {
  const db = await openPglite(dir);
  t.teardown(() => db.close());
  const walSinceCheckpoint = async () =>
    Number(
      (
        await db.query<{ bytes: string }>(
          'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text AS bytes FROM pg_control_checkpoint()',
        )
      ).rows[0].bytes,
    );
  await db.exec('create table filler (t text)');
  const MB = 2 ** 20;
  // Two rounds of about 150 MB of WAL each (1 KB rows); without checkpoints pg_wal would hold both.
  for (let round = 1; round <= 2; round++) {
    await db.exec('insert into filler select repeat(md5(i::text), 32) from generate_series(1, 140000) i');
    await waitFor(`round ${round}: a checkpoint`, async () => (await walSinceCheckpoint()) < 128 * MB, 15_000);
  }
  const wal = diskUsage(join(dir, 'pglite', 'pg_wal'));
  t.ok(wal < 250 * MB, `pg_wal holds ${Math.round(wal / MB)} MB after 300 MB of WAL`);
});
