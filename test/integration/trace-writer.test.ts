// The trace writer against real databases: batched inserts, rows the database refuses, and no trace lost while the
// database is unreachable (queue, spill file, replay), including a stop with the database down and a new writer
// replaying what the old one spilled. Postgres outages go through a TCP proxy that cuts every connection.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { openDatabase, type Database, type Queryable } from '../../src/platform/store/database.ts';
import { migrate } from '../../src/platform/store/migrate.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { listObservationsOfTrace } from '../../src/platform/store/repos/observations.ts';
import { silentLogger, type Logger } from '../../src/platform/telemetry/logger.ts';
import type { TraceItem } from '../../src/gateway/tracing/trace-item.ts';
import { TraceWriter, type TraceWriterOptions, type TraceWriterStats } from '../../src/gateway/tracing/trace-writer.ts';
import { freshPostgresDatabase, seedProject, STORE_BACKENDS, testDatabase } from '../helpers/store.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { waitFor } from '../helpers/wait-for.ts';

const PROJECT = 'p1';

function item(id: string, extra: Partial<TraceItem['trace']> = {}): TraceItem {
  const start = '2030-01-01T00:00:00.000Z';
  return {
    trace: {
      projectId: PROJECT,
      id,
      name: 'chat.completions',
      status: 'completed',
      startTime: start,
      endTime: '2030-01-01T00:00:00.250Z',
      input: [{ role: 'user', content: `question ${id}` }],
      output: { role: 'assistant', content: `answer ${id}` },
      metadata: { 'gateway.key': 'test' },
      tags: { team: 'x' },
      source: 'gateway',
      ...extra,
    },
    observations: [
      {
        projectId: extra.projectId ?? PROJECT,
        id: `${id}.1`,
        traceId: id,
        type: 'GENERATION',
        name: 'attempt 1: a',
        startTime: start,
        endTime: '2030-01-01T00:00:00.200Z',
        status: 'ok',
        usageDetails: { input: 10, output: 5, total: 15 },
        totalTokens: 15,
        totalCost: 0.001,
      },
    ],
  };
}

const ids = (prefix: string, from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}-${from + i}`);

/** Trace ids stored under the prefix, each with how many rows hold it. */
async function storedIds(db: Queryable, prefix: string): Promise<Map<string, number>> {
  const r = await db.query<{ id: string; n: unknown }>(
    'SELECT id, count(*) AS n FROM traces WHERE project_id = $1 AND id LIKE $2 GROUP BY id',
    [PROJECT, `${prefix}-%`],
  );
  return new Map(r.rows.map((row) => [row.id, Number(row.n)]));
}

async function observationCount(db: Queryable, prefix: string): Promise<number> {
  const r = await db.query<{ n: unknown }>(
    'SELECT count(*) AS n FROM observations WHERE project_id = $1 AND trace_id LIKE $2',
    [PROJECT, `${prefix}-%`],
  );
  return Number(r.rows[0].n);
}

/** Every expected id stored exactly once, and nothing else under the prefix. */
async function assertStoredOnce(t: Test, db: Queryable, prefix: string, expected: string[]): Promise<void> {
  const stored = await storedIds(db, prefix);
  t.equal(stored.size, expected.length, `${expected.length} traces stored`);
  const missing = expected.filter((id) => !stored.has(id));
  t.same(missing, [], 'no trace missing');
  t.same(
    [...stored.values()].filter((n) => n !== 1),
    [],
    'each stored once',
  );
  t.equal(await observationCount(db, prefix), expected.length, 'with its observation');
}

/** Writes go through retries with backoff, and outages through a proxy: a generous bound on each wait. */
const WRITE_WAIT_MS = 20_000;

const drained = (s: TraceWriterStats) => s.queue_depth === 0 && s.spill_files === 0;

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-spill-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function writer(t: Test, db: Database, options: Partial<TraceWriterOptions> & { spillDir: string }): TraceWriter {
  const w = new TraceWriter(db, { log: silentLogger, flushMs: 10, maxBackoffMs: 200, ...options });
  t.teardown(() => w.stop(0));
  return w;
}

/** A database whose statements fail like a lost connection while `down` is set. */
function flaky(db: Database): Database & { down: boolean } {
  const wrapper = {
    kind: db.kind,
    down: false,
    async query<R>(sql: string, params?: readonly unknown[]) {
      if (wrapper.down) throw new Error('Connection terminated unexpectedly');
      return db.query<R>(sql, params);
    },
    exec: db.exec.bind(db),
    async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      if (wrapper.down) throw new Error('Connection terminated unexpectedly');
      return db.transaction(work);
    },
    close: () => db.close(),
  };
  return wrapper;
}

interface LogRecord {
  msg: string;
  fields?: Record<string, unknown>;
}

function capturingLogger(): Logger & { infos: LogRecord[]; warns: LogRecord[]; errors: LogRecord[] } {
  const infos: LogRecord[] = [];
  const warns: LogRecord[] = [];
  const errors: LogRecord[] = [];
  const log = {
    infos,
    warns,
    errors,
    debug: () => {},
    info: (msg: string, fields?: Record<string, unknown>) => void infos.push({ msg, fields }),
    warn: (msg: string, fields?: Record<string, unknown>) => void warns.push({ msg, fields }),
    error: (msg: string, fields?: Record<string, unknown>) => void errors.push({ msg, fields }),
    child: () => log,
  };
  return log;
}

const unreachable = (onAttempt: () => void = () => {}): Database => {
  const lost = () => {
    onAttempt();
    return Promise.reject(new Error('Connection terminated unexpectedly'));
  };
  return { kind: 'postgres', query: lost, exec: lost, transaction: lost, close: async () => {} };
};

for (const backend of STORE_BACKENDS) {
  t.test(`${backend}: trace writer`, async (t) => {
    const db = await testDatabase(t, backend);
    await seedProject(db, PROJECT);

    t.test('traces go in batches of batchSize, the last partial one after the flush wait', async (t) => {
      const w = writer(t, db, { spillDir: tempDir(t), batchSize: 10 });
      const expected = ids('batch', 0, 35);
      for (const id of expected) w.enqueue(item(id));
      t.equal(w.snapshot().queue_depth, 35, 'queued before the writer runs');
      w.start();
      await waitFor('35 traces written', () => w.snapshot().traces_written === 35, WRITE_WAIT_MS);
      const s = w.snapshot();
      t.equal(s.batches_written, 4, '10 + 10 + 10 + 5');
      t.equal(s.queue_depth, 0);
      t.equal(s.spilled, 0);
      t.equal(s.dropped, 0);
      t.equal(s.database, 'ok');
      await assertStoredOnce(t, db, 'batch', expected);

      const stored = await getTrace(db, PROJECT, 'batch-7');
      t.match(stored, {
        id: 'batch-7',
        name: 'chat.completions',
        status: 'completed',
        source: 'gateway',
        input: [{ role: 'user', content: 'question batch-7' }],
        output: { role: 'assistant', content: 'answer batch-7' },
        metadata: { 'gateway.key': 'test' },
        tags: { team: 'x' },
        durationMs: 250,
        tokens: 15,
        cost: 0.001,
      });
      const [obs] = await listObservationsOfTrace(db, PROJECT, 'batch-7');
      t.match(obs, {
        id: 'batch-7.1',
        type: 'GENERATION',
        status: 'ok',
        usageDetails: { input: 10, output: 5, total: 15 },
      });

      w.enqueue(item('batch-35'));
      await waitFor('one more trace', () => w.snapshot().traces_written === 36, WRITE_WAIT_MS);
      t.equal(w.snapshot().batches_written, 5, 'a lone trace is written after the flush wait');
    });

    t.test('U+0000 and lone surrogates in content are stored, not a batch that fails forever', async (t) => {
      const w = writer(t, db, { spillDir: tempDir(t), batchSize: 10 });
      const bad = item('nul-0', {
        input: [{ role: 'user', content: 'a\u0000b \ud83d end' }],
        output: { role: 'assistant', content: 'x\udc00y', ['k\u0000ey']: 1 },
        metadata: { 'svc.note': 'nul\u0000' },
      });
      w.enqueue(bad);
      for (const id of ids('nul', 1, 4)) w.enqueue(item(id));
      w.start();
      await waitFor('5 traces written', () => w.snapshot().traces_written === 5, WRITE_WAIT_MS);
      t.equal(w.snapshot().dropped, 0);
      t.equal(w.snapshot().write_failures, 0, 'the first write succeeded');
      await assertStoredOnce(t, db, 'nul', ids('nul', 0, 5));
      const stored = await getTrace(db, PROJECT, 'nul-0');
      t.same(stored?.input, [{ role: 'user', content: 'ab \ufffd end' }], 'NUL dropped, lone high surrogate replaced');
      t.same(
        stored?.output,
        { role: 'assistant', content: 'x\ufffdy', key: 1 },
        'lone low surrogate replaced, NUL removed from a key',
      );
      t.equal(stored?.metadata['svc.note'], 'nul');
    });

    t.test('a trace the database refuses is dropped alone; the rest of its batch is stored', async (t) => {
      const log = capturingLogger();
      const w = new TraceWriter(db, { log, spillDir: tempDir(t), batchSize: 10, flushMs: 10, maxBackoffMs: 200 });
      t.teardown(() => w.stop(0));
      const good = ids('refused', 0, 9);
      // A status outside the table's check: the database refuses that row alone.
      const all = [
        ...good.slice(0, 4).map((id) => item(id)),
        item('refused-row', { status: 'lost' as 'error' }),
        ...good.slice(4).map((id) => item(id)),
      ];
      for (const i of all) w.enqueue(i);
      w.start();
      await waitFor(
        'the batch settled',
        () => w.snapshot().queue_depth === 0 && w.snapshot().traces_written + w.snapshot().dropped === 10,
        WRITE_WAIT_MS,
      );
      t.equal(w.snapshot().dropped, 1, 'one trace dropped');
      t.equal(w.snapshot().traces_written, 9);
      await assertStoredOnce(t, db, 'refused', good);
      t.match(log.errors, [{ msg: /refused a trace; dropped/, fields: { traceId: 'refused-row' } }]);

      w.enqueue(item('refused-9'));
      await waitFor('the writer goes on', () => w.snapshot().traces_written === 10, WRITE_WAIT_MS);
      t.equal(w.snapshot().write_failures, 0, 'a refused row is not a database failure to retry');
    });

    t.test(
      'once a write fails, the queue and every new trace go to the spill file; on recovery everything is stored once',
      async (t) => {
        const spillDir = tempDir(t);
        const fdb = flaky(db);
        const w = writer(t, fdb, { spillDir, capacity: 20, batchSize: 5 });
        w.start();
        for (const id of ids('flaky', 0, 5)) w.enqueue(item(id));
        await waitFor('first traces written', () => w.snapshot().traces_written === 5, WRITE_WAIT_MS);
        fdb.down = true;
        for (const id of ids('flaky', 5, 50)) w.enqueue(item(id));
        t.equal(w.snapshot().queue_depth, 20, 'the queue holds its capacity');
        t.equal(w.snapshot().spilled, 30, 'the rest went to the spill file');
        await waitFor('a failed write', () => w.snapshot().write_failures >= 1, WRITE_WAIT_MS);
        t.equal(w.snapshot().queue_depth, 0, 'the failed write moved the queue to the spill file');
        t.equal(w.snapshot().spilled, 50);
        for (const id of ids('flaky', 55, 5)) w.enqueue(item(id));
        t.equal(w.snapshot().queue_depth, 0, 'new traces do not wait in memory while the database fails');
        t.equal(w.snapshot().spilled, 55);
        t.equal(w.snapshot().spill_files, 1, 'one spill file, being appended');
        await waitFor(
          'the spill file written',
          () => readdirSync(spillDir).some((f) => !f.includes('.journal.')),
          WRITE_WAIT_MS,
        );
        await waitFor('another failed write', () => w.snapshot().write_failures >= 2, WRITE_WAIT_MS);
        t.equal(w.snapshot().database, 'failing');
        fdb.down = false;
        await waitFor('drained', () => drained(w.snapshot()), WRITE_WAIT_MS);
        const s = w.snapshot();
        t.equal(s.dropped, 0);
        t.equal(s.replayed, 55, 'every spilled trace replayed');
        t.equal(s.traces_written, 60);
        t.equal(s.database, 'ok');
        await assertStoredOnce(t, db, 'flaky', ids('flaky', 0, 60));
        t.same(readdirSync(spillDir), [], 'the spill directory is empty after replay');
      },
    );

    t.test('spill files left from before, database down: the replay backs off until a write succeeds', async (t) => {
      const spillDir = tempDir(t);
      const before = new TraceWriter(unreachable(), { log: silentLogger, spillDir, flushMs: 10, maxBackoffMs: 200 });
      for (const id of ids('left', 0, 3)) before.enqueue(item(id));
      await before.stop(0);
      t.equal(before.snapshot().spilled, 3, 'the previous writer spilled its queue');

      const fdb = flaky(db);
      fdb.down = true;
      const log = capturingLogger();
      const w = new TraceWriter(fdb, { log, spillDir, flushMs: 10, maxBackoffMs: 200 });
      t.teardown(() => w.stop(0));
      w.start();
      await waitFor('failed replays', () => w.snapshot().write_failures >= 3, WRITE_WAIT_MS);
      t.equal(w.snapshot().database, 'failing', 'still failing between replay attempts');
      t.same(log.infos, [], 'never reported reachable while down');
      t.equal(log.warns.length, 1, 'one warning for the whole failure streak');
      fdb.down = false;
      await waitFor('replayed', () => drained(w.snapshot()), WRITE_WAIT_MS);
      t.equal(w.snapshot().replayed, 3);
      t.equal(w.snapshot().database, 'ok');
      t.match(log.infos, [{ msg: 'trace store reachable again' }]);
      await assertStoredOnce(t, db, 'left', ids('left', 0, 3));
    });

    t.test(
      'open spill files of processes that are gone are adopted and replayed; a live process keeps its own',
      async (t) => {
        const spillDir = tempDir(t);
        const lines = (list: string[]) => list.map((id) => `${JSON.stringify(item(id))}\n`).join('');
        const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
        // Killed while spilling; after a container restart the new process often gets the same pid.
        writeFileSync(join(spillDir, `spill-1-${process.pid}-aaaaaa.ndjson.open`), lines(ids('adopt', 0, 2)));
        writeFileSync(join(spillDir, `spill-2-${deadPid}-bbbbbb.ndjson.open`), lines(ids('adopt', 2, 2)));
        // Another process on this host still appending (here: the test runner that started this one).
        const live = `spill-3-${process.ppid}-cccccc.ndjson.open`;
        writeFileSync(join(spillDir, live), lines(['adopt-live']));
        const w = writer(t, db, { spillDir });
        w.start();
        await waitFor(
          'the orphans replayed',
          () => w.snapshot().replayed === 4 && drained(w.snapshot()),
          WRITE_WAIT_MS,
        );
        await assertStoredOnce(t, db, 'adopt', ids('adopt', 0, 4));
        t.same(readdirSync(spillDir), [live], 'the live process keeps its open file');
      },
    );
  });
}

/** A database whose trace writes wait until `release()` is called. */
function gated(db: Database): Database & { release(): void; waiting: number } {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const wrapper = {
    kind: db.kind,
    waiting: 0,
    release: () => open(),
    async query<R>(sql: string, params?: readonly unknown[]) {
      wrapper.waiting++;
      await gate;
      return db.query<R>(sql, params);
    },
    exec: db.exec.bind(db),
    transaction: db.transaction.bind(db),
    close: () => db.close(),
  };
  return wrapper;
}

const journalFiles = (dir: string) => readdirSync(dir).filter((f) => f.includes('.journal.'));

t.test('queued traces are journaled to disk within journalMs; once stored, the journal is emptied', async (t) => {
  const db = await testDatabase(t, 'postgres');
  await seedProject(db, PROJECT);
  const spillDir = tempDir(t);
  const slow = gated(db);
  const w = writer(t, slow, { spillDir, batchSize: 5, journalMs: 20 });
  w.start();
  for (const id of ids('journal', 0, 5)) w.enqueue(item(id));
  await waitFor('the first write under way', () => slow.waiting > 0, WRITE_WAIT_MS);
  for (const id of ids('journal', 5, 3)) w.enqueue(item(id));
  await waitFor(
    'a journal file with the queued traces',
    () => {
      const [file] = journalFiles(spillDir);
      return file !== undefined && readFileSync(join(spillDir, file), 'utf8').split('\n').filter(Boolean).length === 8;
    },
    WRITE_WAIT_MS,
  );
  const [file] = journalFiles(spillDir);
  t.match(file, /^spill-\d+-\d+-[0-9a-f]+\.journal\.ndjson\.open$/, 'an open file of this process');
  t.same(
    readFileSync(join(spillDir, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).trace.id),
    ids('journal', 0, 8),
    'every queued trace, in queue order',
  );
  t.equal(w.snapshot().queue_depth, 8, 'still in memory too');
  slow.release();
  await waitFor('all written', () => w.snapshot().traces_written === 8, WRITE_WAIT_MS);
  await waitFor('the journal emptied', () => readFileSync(join(spillDir, file), 'utf8') === '', WRITE_WAIT_MS);
  t.equal(w.snapshot().spilled, 0, 'nothing spilled');
  await assertStoredOnce(t, db, 'journal', ids('journal', 0, 8));
  await w.stop(1_000);
  t.same(readdirSync(spillDir), [], 'a stopped writer leaves no journal');
});

t.test('a journal left by a killed process is replayed from its last checkpoint', async (t) => {
  const db = await testDatabase(t, 'postgres');
  await seedProject(db, PROJECT);
  const spillDir = tempDir(t);
  const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
  const lines = (list: string[]) => list.map((id) => `${JSON.stringify(item(id))}\n`).join('');
  // Items 0-2 were stored before the kill (the checkpoint says so); 3-5 were not.
  writeFileSync(
    join(spillDir, `spill-1-${deadPid}-dddddd.journal.ndjson.open`),
    `${lines(ids('ckpt', 0, 2))}{"svc.journal.stored":1}\n${lines(ids('ckpt', 2, 4))}{"svc.journal.stored":3}\n`,
  );
  const w = writer(t, db, { spillDir });
  w.start();
  await waitFor('the journal replayed', () => w.snapshot().replayed === 3 && drained(w.snapshot()), WRITE_WAIT_MS);
  await assertStoredOnce(t, db, 'ckpt', ids('ckpt', 3, 3));
  t.same(readdirSync(spillDir), [], 'the replayed journal is deleted');
});

t.test('a full batch does not cut the backoff short while the database fails', async (t) => {
  let attempts = 0;
  const down = unreachable(() => attempts++);
  const w = new TraceWriter(down, {
    log: silentLogger,
    spillDir: tempDir(t),
    capacity: 1_000,
    batchSize: 5,
    flushMs: 10,
    maxBackoffMs: 60_000,
  });
  t.teardown(() => w.stop(0));
  w.start();
  for (const id of ids('backoff', 0, 5)) w.enqueue(item(id));
  await waitFor('the first failed write', () => attempts === 1, WRITE_WAIT_MS);
  // Each enqueue past the batch size used to wake the writer out of its backoff: one database attempt per trace.
  for (const id of ids('backoff', 5, 100)) {
    w.enqueue(item(id));
    await new Promise((r) => setImmediate(r));
  }
  t.ok(attempts <= 2, `the writer kept its backoff (${attempts} attempts for 105 traces)`);
  t.equal(w.snapshot().queue_depth, 0, 'no trace waits in memory');
  t.equal(w.snapshot().spilled, 105, 'they went to the spill file');
});

/** A fresh, migrated Postgres database with a project, opened directly and through a TCP proxy the test can cut. */
async function proxiedDatabase(t: Test): Promise<{ proxy: TcpProxy; direct: Database; viaProxy: Database }> {
  const url = await freshPostgresDatabase(t);
  const proxy = await startTcpProxy(t);
  const direct = await openDatabase({ postgresUrl: url, dataDir: '' });
  t.teardown(() => direct.close());
  await migrate(direct);
  await seedProject(direct, PROJECT);
  const viaProxy = await openDatabase({ postgresUrl: proxy.through(url), dataDir: '' });
  t.teardown(() => viaProxy.close());
  return { proxy, direct, viaProxy };
}

t.test('postgres through a proxy: cut, spill, restore, replay', async (t) => {
  const { proxy, direct, viaProxy } = await proxiedDatabase(t);

  const spillDir = tempDir(t);
  const w = writer(t, viaProxy, { spillDir, capacity: 20, batchSize: 5 });
  w.start();
  for (const id of ids('cut', 0, 10)) w.enqueue(item(id));
  await waitFor('written through the proxy', () => w.snapshot().traces_written === 10, WRITE_WAIT_MS);
  t.ok(proxy.forwarded > 0, 'the writer reached Postgres through the proxy');

  proxy.cut();
  for (const id of ids('cut', 10, 60)) w.enqueue(item(id));
  t.equal(w.snapshot().queue_depth, 20, 'the queue holds its capacity');
  t.equal(w.snapshot().spilled, 40, 'beyond it traces are spilled');
  await waitFor('failed writes', () => w.snapshot().write_failures >= 2, WRITE_WAIT_MS);
  t.match(
    readdirSync(spillDir).filter((f) => !f.includes('.journal.')),
    [/^spill-.*\.ndjson(\.open)?$/],
    'into append-only files under the spill directory',
  );
  t.equal(w.snapshot().database, 'failing');
  t.equal(w.snapshot().queue_depth, 0, 'the queue went to the spill file at the first failure');
  t.ok(proxy.refused > 0, 'the writer kept trying while the database was cut');
  for (const id of ids('cut', 70, 30)) w.enqueue(item(id));
  t.equal(w.snapshot().spilled, 90, 'still spilling while the database is cut');
  t.equal((await storedIds(direct, 'cut')).size, 10, 'nothing written during the cut');

  proxy.restore();
  await waitFor('drained after restore', () => drained(w.snapshot()), WRITE_WAIT_MS);
  const s = w.snapshot();
  t.equal(s.dropped, 0, 'nothing dropped');
  t.equal(s.replayed, 90, 'every spilled trace replayed');
  t.equal(s.traces_written, 100);
  t.equal(s.database, 'ok');
  t.ok(s.batches_written >= 100 / 5, `${s.batches_written} batches of at most 5`);
  await assertStoredOnce(t, direct, 'cut', ids('cut', 0, 100));
  t.same(readdirSync(spillDir), [], 'the spill directory is empty after replay');
});

t.test(
  'postgres through a proxy: stop() with the database down spills the queue; a new writer replays it',
  async (t) => {
    const { proxy, direct, viaProxy } = await proxiedDatabase(t);
    const spillDir = tempDir(t);

    const first = new TraceWriter(viaProxy, {
      log: silentLogger,
      spillDir,
      capacity: 100,
      batchSize: 10,
      flushMs: 10,
      maxBackoffMs: 200,
    });
    first.start();
    for (const id of ids('stop', 0, 5)) first.enqueue(item(id));
    await waitFor('first traces written', () => first.snapshot().traces_written === 5, WRITE_WAIT_MS);
    proxy.cut();
    for (const id of ids('stop', 5, 30)) first.enqueue(item(id));
    t.equal(first.snapshot().spilled, 0, 'the queue has room: nothing spilled before a write fails');
    await waitFor('a failed write', () => first.snapshot().write_failures >= 1, WRITE_WAIT_MS);
    t.equal(first.snapshot().spilled, 30, 'the failed write spilled the whole queue');
    await first.stop(1_000);
    t.equal(first.snapshot().queue_depth, 0);
    t.match(readdirSync(spillDir), [/^spill-.*\.ndjson$/], 'one closed spill file, ready for replay');
    // A trace finishing after stop() (a request past the drain deadline) is kept too.
    first.enqueue(item('stop-35'));
    await waitFor(
      'the late trace in a closed file',
      () => readdirSync(spillDir).every((f) => f.endsWith('.ndjson')) && readdirSync(spillDir).length === 2,
      WRITE_WAIT_MS,
    );
    t.equal((await storedIds(direct, 'stop')).size, 5);

    proxy.restore();
    const second = writer(t, viaProxy, { spillDir, capacity: 100, batchSize: 10 });
    second.start();
    await waitFor(
      'the new writer replayed the spill files',
      () => drained(second.snapshot()) && second.snapshot().replayed === 31,
      WRITE_WAIT_MS,
    );
    t.equal(second.snapshot().dropped, 0);
    await assertStoredOnce(t, direct, 'stop', ids('stop', 0, 36));
    t.same(readdirSync(spillDir), [], 'the spill directory is empty after replay');
  },
);

t.test('postgres through a proxy: the connection lost while a write is in flight; the writer retries', async (t) => {
  const { proxy, direct, viaProxy } = await proxiedDatabase(t);

  const w = writer(t, viaProxy, { spillDir: tempDir(t), batchSize: 5 });
  w.start();
  for (const id of ids('inflight', 0, 5)) w.enqueue(item(id));
  await waitFor('first batch written', () => w.snapshot().traces_written === 5, WRITE_WAIT_MS);
  proxy.stall();
  for (const id of ids('inflight', 5, 5)) w.enqueue(item(id));
  await waitFor('the write on the wire', () => proxy.held > 0, WRITE_WAIT_MS);
  // The connection dies while checked out of the pool with a statement in flight. A pg client in that state emits
  // 'error'; without a listener that event would end the process.
  proxy.cut();
  await waitFor('the failed write', () => w.snapshot().write_failures >= 1, WRITE_WAIT_MS);
  t.equal(w.snapshot().spilled, 5, 'the batch went to the spill file');
  proxy.restore();
  await waitFor('written after restore', () => w.snapshot().traces_written === 10, WRITE_WAIT_MS);
  t.equal(w.snapshot().dropped, 0);
  await assertStoredOnce(t, direct, 'inflight', ids('inflight', 0, 10));
});
