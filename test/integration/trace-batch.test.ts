// The trace batch insert on both stores: what it stores for awkward values (text COPY gives a meaning to, U+0000,
// lone surrogates, absent and null fields, a number that is not finite), the embedded store's COPY storing exactly
// what the statement stores, batches written again (COPY refuses them, the statement skips them), a duplicate inside a batch, and a refused row failing its batch
// with the SQLSTATE the durable writer splits on.
import t from 'tap';
import type { Database, Queryable } from '../../src/platform/store/database.ts';
import { bulkLoader } from '../../src/platform/store/pglite-database.ts';
import type { ObservationRow } from '../../src/platform/store/repos/observations.ts';
import { insertTraceBatch } from '../../src/platform/store/repos/trace-batch.ts';
import type { TraceRow } from '../../src/platform/store/repos/traces.ts';
import { seedProject, STORE_BACKENDS, testDatabase } from '../helpers/store.ts';

const PROJECT = 'p1';
const AWKWARD = 'tab\there new\nline cr\rend back\\slash \\N \\.\n\\. nul\u0000gone lone\ud800 pair😀 quote" é';
/** AWKWARD as jsonb and text columns can hold it: U+0000 dropped, the lone surrogate replaced. */
const STORED = AWKWARD.replace('\u0000', '').replace('\ud800', '\ufffd');

interface Rows {
  trace: TraceRow;
  observations: ObservationRow[];
}

function awkward(id: string): Rows {
  return {
    trace: {
      projectId: PROJECT,
      id,
      name: AWKWARD,
      status: 'completed',
      startTime: '2030-01-01T00:00:00.000Z',
      endTime: '2030-01-01T00:00:01.500Z',
      input: { messages: [{ role: 'user', content: AWKWARD }], [AWKWARD]: [1, 2.5, true, null] },
      output: AWKWARD,
      metadata: null as unknown as undefined,
      userId: 'user\\1',
      sessionId: null,
      source: 'gateway',
      modelGroup: 'g',
      deployment: 'd',
      statusCode: 200,
      errorCode: null,
      cacheHit: true,
      release: 'r1',
    },
    observations: [
      {
        projectId: PROJECT,
        id: `${id}.1`,
        traceId: id,
        type: 'GENERATION',
        name: 'attempt 1: d',
        startTime: '2030-01-01T00:00:00.100Z',
        endTime: '2030-01-01T00:00:01.400Z',
        completionStartTime: '2030-01-01T00:00:00.300Z',
        status: 'ok',
        level: null as unknown as undefined,
        statusMessage: AWKWARD,
        attributes: { [AWKWARD]: AWKWARD },
        input: null,
        output: [AWKWARD],
        model: 'm',
        modelParameters: { temperature: 0.2 },
        usageDetails: { input: 3 },
        totalTokens: 3,
        totalCost: Number.NaN,
        environment: 'prod',
        version: '2',
        promptName: 'p',
        promptVersion: 4,
      },
    ],
  };
}

const insert = (db: Queryable, batch: Rows[]) =>
  insertTraceBatch(
    db,
    batch.map((r) => r.trace),
    batch.flatMap((r) => r.observations),
  );

/** The store without its bulk loader: what the statement stores. */
const statementOnly = (db: Database): Queryable => ({
  query: (sql, params) => db.query(sql, params),
  exec: (sql) => db.exec(sql),
});

/** The store, its COPY loads (on the embedded store) noted as loaded or refused: a refused one falls back quietly. */
function noted(db: Database): { db: Queryable; copies: string[] } {
  const loader = bulkLoader(db);
  const copies: string[] = [];
  if (!loader) return { db, copies };
  const copyFrom: typeof loader.copyFrom = (loads) =>
    loader.copyFrom(loads).then(
      (rows) => (copies.push('loaded'), rows),
      (err: unknown) => (copies.push('refused'), Promise.reject(err)),
    );
  return { db: { ...statementOnly(db), copyFrom } as Queryable, copies };
}

/** A stored trace and its observation, every column but the ids and the write times. */
async function stored(db: Queryable, id: string) {
  const trace = await db.query<{ row: Record<string, unknown> }>(
    `SELECT to_jsonb(t) - 'id' - 'created_at' - 'updated_at' AS row FROM traces t WHERE project_id = $1 AND id = $2`,
    [PROJECT, id],
  );
  const observation = await db.query<{ row: Record<string, unknown> }>(
    `SELECT to_jsonb(o) - 'id' - 'trace_id' - 'created_at' - 'updated_at' AS row FROM observations o
     WHERE project_id = $1 AND trace_id = $2`,
    [PROJECT, id],
  );
  return { trace: trace.rows[0]?.row, observation: observation.rows[0]?.row };
}

async function count(db: Queryable, prefix: string): Promise<{ traces: number; observations: number }> {
  const r = await db.query<{ traces: unknown; observations: unknown }>(
    `SELECT (SELECT count(*) FROM traces WHERE project_id = $1 AND id LIKE $2) AS traces,
            (SELECT count(*) FROM observations WHERE project_id = $1 AND trace_id LIKE $2) AS observations`,
    [PROJECT, `${prefix}-%`],
  );
  return { traces: Number(r.rows[0].traces), observations: Number(r.rows[0].observations) };
}

for (const backend of STORE_BACKENDS) {
  t.test(`${backend}: trace batch insert`, async (t) => {
    const db = await testDatabase(t, backend);
    await seedProject(db, PROJECT);

    t.test('awkward values are stored as the statement stores them, defaults for absent and null fields', async (t) => {
      const bulkDb = noted(db);
      t.same(await insert(bulkDb.db, [awkward('odd-bulk')]), { traces: 1, observations: 1 });
      t.same(bulkDb.copies, backend === 'pglite' ? ['loaded'] : [], 'the embedded store loaded it with COPY');
      t.same(await insert(statementOnly(db), [awkward('odd-statement')]), { traces: 1, observations: 1 });
      const bulk = await stored(db, 'odd-bulk');
      const statement = await stored(db, 'odd-statement');
      t.match(bulk.trace, {
        name: STORED,
        input: { messages: [{ role: 'user', content: STORED }], [STORED]: [1, 2.5, true, null] },
        output: STORED,
        metadata: {},
        tags: {},
        user_id: 'user\\1',
        session_id: null,
        agent_id: null,
        status_code: 200,
        cache_hit: true,
        environment: 'default',
        release: 'r1',
        version: null,
        public: false,
      });
      t.match(bulk.observation, {
        level: 'DEFAULT',
        status_message: STORED,
        attributes: { [STORED]: STORED },
        input: null,
        output: [STORED],
        cost_details: {},
        total_tokens: 3,
        total_cost: 0,
        prompt_version: 4,
      });
      t.same(bulk.trace, statement.trace, 'the trace row equals the statement’s');
      t.same(bulk.observation, statement.observation, 'the observation row equals the statement’s');
    });

    t.test('a batch written again stores nothing more; of a batch partly stored, the rest', async (t) => {
      const { db: store, copies } = noted(db);
      t.same(await insert(store, [awkward('again-1'), awkward('again-2')]), { traces: 2, observations: 2 });
      t.same(await insert(store, [awkward('again-1'), awkward('again-2')]), { traces: 0, observations: 0 });
      t.same(await insert(store, [awkward('again-2'), awkward('again-3')]), { traces: 1, observations: 1 });
      if (backend === 'pglite') t.same(copies, ['loaded', 'refused', 'refused'], 'stored rows fail COPY, then skip');
      t.same(await count(db, 'again'), { traces: 3, observations: 3 });
    });

    t.test('a trace twice in one batch is stored once', async (t) => {
      t.same(await insert(db, [awkward('twice-1'), awkward('twice-1')]), { traces: 1, observations: 1 });
      t.same(await count(db, 'twice'), { traces: 1, observations: 1 });
    });

    t.test('a refused row fails its whole batch with its SQLSTATE', async (t) => {
      const refused = awkward('refused-2');
      refused.trace.status = 'lost' as 'error';
      await t.rejects(insert(db, [awkward('refused-1'), refused]), { code: '23514' });
      t.same(await count(db, 'refused'), { traces: 0, observations: 0 }, 'nothing of the batch stored');
    });
  });
}
