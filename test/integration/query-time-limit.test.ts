// The time limit of the admin surfaces' reads (store.query_timeout_ms, docs/configuration.md): a read that reaches it
// is cancelled by PostgreSQL and answered 422 in the surface's envelope (public API: Langfuse's `Request timed out`;
// REST and dashboard: `query_timeout`), never a 500, while ingestion, which has no limit, goes on. The limit is set to 1 ms and
// the traces grow until the reads take longer, so no timing is asserted. The embedded store cannot stop a query.
import t from 'tap';
import { withStatementTimeout, type Database } from '../../src/platform/store/database.ts';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { generateTraces } from '../helpers/generated-traces.ts';
import { basicAuth, callAdmin } from '../helpers/public-api.ts';
import { signIn } from '../helpers/dashboard.ts';
import { bearer, call, checkError } from '../helpers/rest-api.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';
import { testDatabase } from '../helpers/store.ts';

const PROJECT = 'default';
/** Every trace's cost summed over its observations, for every trace: work that grows with the traces. */
const COSTLY_FILTER = JSON.stringify([{ type: 'number', column: 'totalCost', operator: '>', value: 1e9 }]);
const COSTLY_LIST = `/api/public/traces?filter=${encodeURIComponent(COSTLY_FILTER)}`;

async function startWithLimit(t: Parameters<typeof startTestService>[0], backend: 'postgres' | 'pglite') {
  const s = await startTestService(
    t,
    baseConfig({ projects: [{ id: PROJECT, name: 'Default' }], store: { query_timeout_ms: 1 } }),
    { backend },
  );
  const key = await createApiKey(s.service.db, {
    kind: 'project',
    organizationId: 'default',
    projectId: PROJECT,
    now: Date.now(),
  });
  return { s, db: s.service.db, key };
}

/**
 * Adds traces to the `stored` ones in doubling batches until `timedOut` holds for the answers, or 64,000 traces did not
 * suffice; answers the last answer and how many traces there are.
 */
async function growUntil<R>(
  db: Database,
  stored: number,
  request: (traces: number) => Promise<R>,
  timedOut: (r: R) => boolean,
) {
  let traces = stored;
  for (let batch = Math.max(2000, stored); ; batch *= 2) {
    await generateTraces(db, { projectId: PROJECT, count: batch, first: traces + 1, from: '2026-01-01T00:00:00Z' });
    traces += batch;
    const answer = await request(traces);
    if (timedOut(answer) || traces >= 64_000) return { answer, traces };
  }
}

const ingestionBatch = (n: number) => ({
  batch: Array.from({ length: n }, (_, i) => ({
    id: `event-${i}`,
    type: 'trace-create',
    timestamp: new Date().toISOString(),
    body: { id: `live-${i}`, name: 'during-a-timeout', timestamp: new Date().toISOString() },
  })),
});

t.test('on PostgreSQL a read past the limit answers 422 in each envelope; ingestion is not limited', async (t) => {
  const { s, db, key } = await startWithLimit(t, 'postgres');
  const auth = basicAuth(key);
  const publicList = () => callAdmin(s, 'GET', COSTLY_LIST, auth);
  const grown = await growUntil(db, 0, publicList, (r) => r.status !== 200);
  const pub = grown.answer;
  let traces = grown.traces;

  t.equal(pub.status, 422, `public API: 422 (after ${traces} traces)`);
  t.same(Object.keys(pub.body).sort(), ['error', 'message'], 'public API: Langfuse error body');
  t.equal(pub.body.error, 'Request timed out', "public API: Langfuse's error for a read out of resources");
  t.match(pub.body.message, /did not finish within its time limit \(1 ms\)/);
  t.match(pub.body.message, /narrow your request/);

  // Deep in the list: the page skips `offset` rows and the total counts past them.
  const restPage = (n: number) =>
    call(s.adminUrl, 'GET', `/traces?limit=1000&offset=${Math.max(0, n - 500)}`, { auth: bearer(key) });
  let rest = await restPage(traces);
  if (rest.status === 200) ({ answer: rest, traces } = await growUntil(db, traces, restPage, (r) => r.status !== 200));
  checkError(t, rest, 422, 'query_timeout', {
    message: /did not finish within its time limit \(1 ms\)\. Narrow it/,
    details: { reason: 'query timeout', timeoutMs: 1 },
  });

  // The dashboard's trace list, searching the names of every trace.
  const owner = await signIn(s, 'owner@localhost', s.service.firstOwner!.password);
  const dashboardList = () => owner.call('GET', '/projects/default/traces?q=no-such-name');
  let dashboard = await dashboardList();
  if (dashboard.status === 200)
    ({ answer: dashboard } = await growUntil(db, traces, dashboardList, (r) => r.status !== 200));
  t.equal(dashboard.status, 422, 'dashboard: 422');
  t.same(Object.keys(dashboard.body), ['error'], 'dashboard: its envelope');
  t.equal(dashboard.body.error.code, 'query_timeout');
  t.match(dashboard.body.error.message, /did not finish within its time limit \(1 ms\)\. Narrow it/);

  t.test('ingestion while reads time out', async (t) => {
    const reads = Array.from({ length: 4 }, publicList);
    const ingested = callAdmin(s, 'POST', '/api/public/ingestion', auth, ingestionBatch(50));
    const [ingestion, ...answers] = await Promise.all([ingested, ...reads]);
    t.equal(ingestion.status, 207);
    t.same(ingestion.body.errors, [], 'every event accepted');
    t.equal(ingestion.body.successes.length, 50);
    t.same(
      answers.map((a) => a.status),
      [422, 422, 422, 422],
      'the reads beside it timed out',
    );
    const stored = await db.query<{ n: unknown }>(
      `SELECT count(*) AS n FROM traces WHERE project_id = $1 AND name = 'during-a-timeout'`,
      [PROJECT],
    );
    t.equal(Number(stored.rows[0].n), 50, 'the 50 traces are stored');
    const created = await call(s.adminUrl, 'POST', '/traces', { auth: bearer(key), json: { name: 'rest-write' } });
    t.equal(created.status, 201, 'a REST trace is created too');
  });
});

t.test('the embedded store runs a read to its end: it cannot cancel a running query', async (t) => {
  const { s, db, key } = await startWithLimit(t, 'pglite');
  await generateTraces(db, { projectId: PROJECT, count: 2000, from: '2026-01-01T00:00:00Z' });
  const r = await callAdmin(s, 'GET', COSTLY_LIST, basicAuth(key));
  t.equal(r.status, 200);
  t.same(r.body.data, [], 'no trace costs that much');
});

t.test(
  'admin reads run with their limit, without JIT or parallel workers; the settings end with the read',
  async (t) => {
    const db = await testDatabase(t, 'postgres');
    const reads = withStatementTimeout(db, 1234);
    const settings = `SELECT current_setting('statement_timeout') AS timeout, current_setting('jit') AS jit,
    current_setting('max_parallel_workers_per_gather') AS workers`;
    t.same((await reads.query(settings)).rows, [{ timeout: '1234ms', jit: 'off', workers: '0' }]);
    t.same(
      (await reads.query(settings, [], { statementTimeoutMs: 50 })).rows[0].timeout,
      '50ms',
      "a caller's shorter limit wins",
    );
    const after = (await db.query<{ workers: string }>(settings)).rows[0];
    t.not(after.workers, '0', 'a query outside the admin reads keeps the server default');
  },
);
