// Metric rollups of the traces the trace writer stores (src/gateway/tracing/write-trace-batch.ts, rollup-flusher.ts), on
// both store backends: every bucket size holds the sums; a trace batch retried after its reply was lost counts once; a
// batch the store refuses counts nothing; non-gateway traces do not count; a rollup flush retried after its reply was
// lost adds once.
import t from 'tap';
import { RollupAccumulator } from '../../src/gateway/tracing/rollup-accumulator.ts';
import { RollupFlusher } from '../../src/gateway/tracing/rollup-flusher.ts';
import type { Database, Queryable } from '../../src/platform/store/database.ts';
import { ensureOrganization, upsertProject } from '../../src/platform/store/repos/projects.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import type { TraceItem } from '../../src/gateway/tracing/trace-item.ts';
import { TraceWriter } from '../../src/gateway/tracing/trace-writer.ts';
import { writeTraceBatch } from '../../src/gateway/tracing/write-trace-batch.ts';
import { STORE_BACKENDS, testDatabase } from '../helpers/store.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MINUTE = Date.parse('2030-01-01T10:07:00Z');

function item(
  id: string,
  o: {
    project?: string;
    agent?: string;
    second?: number;
    ms?: number;
    status?: 'completed' | 'error';
    code?: string;
    source?: 'gateway' | 'api';
    cache?: string;
    fallback?: boolean;
  } = {},
): TraceItem {
  const project = o.project ?? 'p1';
  const start = MINUTE + (o.second ?? 0) * 1000;
  const metadata: Record<string, unknown> = {};
  if (o.cache) metadata['gateway.cache'] = o.cache;
  if (o.fallback) metadata['gateway.fallback_from'] = 'primary';
  return {
    trace: {
      projectId: project,
      id,
      status: o.status ?? 'completed',
      startTime: new Date(start).toISOString(),
      endTime: new Date(start + (o.ms ?? 100)).toISOString(),
      metadata,
      agentId: o.agent ?? null,
      source: o.source ?? 'gateway',
      modelGroup: 'g',
      deployment: o.code ? null : 'd',
      errorCode: o.code ?? null,
      cacheHit: o.cache === 'hit',
    },
    observations: o.code
      ? []
      : [
          {
            projectId: project,
            id: `${id}.1`,
            traceId: id,
            type: 'GENERATION',
            startTime: new Date(start).toISOString(),
            totalTokens: 10,
            totalCost: 0.000123,
            costDetails: { input: 0.000023, output: 0.0001, total: 0.000123 },
          },
        ],
  };
}

interface Sums {
  requests: number;
  errors: number;
  tokens: number;
  cost: number;
}

async function sums(db: Queryable, periodS = 60): Promise<Sums> {
  const r = await db.query<Record<string, unknown>>(
    `SELECT COALESCE(sum(requests), 0) AS requests, COALESCE(sum(errors), 0) AS errors, COALESCE(sum(tokens), 0) AS tokens,
       COALESCE(sum(cost_nano_usd), 0) AS cost FROM metric_rollups WHERE project_id = 'p1' AND period_s = $1`,
    [periodS],
  );
  const row = r.rows[0];
  return {
    requests: Number(row.requests),
    errors: Number(row.errors),
    tokens: Number(row.tokens),
    cost: Number(row.cost) / 1e9,
  };
}

/** A database whose statements matching `pattern` run and then fail, like a reply lost after the commit, `lose` times. */
function losingReplies(db: Database, pattern: RegExp): Database & { lose: number } {
  const wrapper = {
    kind: db.kind,
    lose: 0,
    async query<R>(sql: string, params?: readonly unknown[]) {
      const result = await db.query<R>(sql, params);
      if (wrapper.lose > 0 && pattern.test(sql)) {
        wrapper.lose--;
        throw new Error('Connection terminated unexpectedly');
      }
      return result;
    },
    exec: db.exec.bind(db),
    transaction: db.transaction.bind(db),
    close: () => db.close(),
  };
  return wrapper;
}

t.test('the accumulator: one row per bucket size and key, summed', async (t) => {
  const acc = new RollupAccumulator();
  acc.add(item('a', { agent: 'x', ms: 100, cache: 'miss' }));
  acc.add(item('b', { agent: 'x', second: 30, ms: 300, cache: 'hit' }));
  acc.add(item('c', { status: 'error', code: 'rate_limit_exceeded' }));
  acc.add(item('d', { source: 'api' }));
  const rows = acc.rows();
  t.equal(rows.length, 8, 'two keys (agent x with deployment d; no agent, no deployment) × four bucket sizes');
  const x = rows.filter((r) => r.agentId === 'x');
  t.same(
    x.map((r) => [r.periodS, r.periodStart]).sort(),
    [
      [21_600, '2030-01-01T06:00:00.000Z'],
      [3600, '2030-01-01T10:00:00.000Z'],
      [60, '2030-01-01T10:07:00.000Z'],
      [900, '2030-01-01T10:00:00.000Z'],
    ].sort(),
    'periods start on multiples of their size',
  );
  t.match(x[0], {
    requests: 2,
    errors: 0,
    tokens: 20,
    costNanoUsd: 246_000,
    costComponents: { input: 46_000, output: 200_000 },
    cacheHits: 1,
    cacheLookups: 2,
    fallbacks: 0,
    refusals: {},
  });
  const none = rows.find((r) => r.agentId === '')!;
  t.match(
    none,
    { requests: 1, errors: 1, tokens: 0, deployment: '', refusals: { rate_limit_exceeded: 1 } },
    'a refusal, not the API trace',
  );
});

for (const backend of STORE_BACKENDS) {
  t.test(`${backend}: rollups written with the traces`, async (t) => {
    const db = await testDatabase(t, backend);
    await ensureOrganization(db, { id: 'org', name: 'Org' });
    await upsertProject(db, {
      id: 'p1',
      organizationId: 'org',
      name: 'P1',
      maxKeyExpiryHours: 24,
      ingestionOnly: false,
    });

    const rollups = new RollupFlusher(db, { log: silentLogger });
    const write = async (batch: TraceItem[]) => {
      await writeTraceBatch(db, batch, rollups);
      await rollups.flush();
    };
    const first = [
      item('t1', { agent: 'x' }),
      item('t2', { agent: 'x', second: 70 }),
      item('t3', { status: 'error', code: 'budget_exceeded' }),
      item('t4', { source: 'api' }),
    ];
    await write(first);
    const once = await sums(db);
    t.same(once, { requests: 3, errors: 1, tokens: 20, cost: 0.000246 }, 'gateway traces counted, the API trace not');
    for (const size of [900, 3600, 21_600]) t.same(await sums(db, size), once, `the same sums at ${size} s`);
    const latency = await db.query<{ latency: Record<string, number> }>(
      `SELECT latency FROM metric_rollups WHERE project_id = 'p1' AND period_s = 3600 AND agent_id = 'x'`,
    );
    t.same(Object.values(latency.rows[0].latency), [2], 'two latencies of 100 ms in one histogram bucket');

    await write([item('t5', { agent: 'x' }), item('t5', { agent: 'x' })]);
    const more = { ...once, requests: 4, tokens: 30, cost: 0.000369 };
    t.same(await sums(db), more, 'a trace enqueued twice counts once');
    const components = await db.query<{ cost_components: Record<string, number> }>(
      `SELECT cost_components FROM metric_rollups WHERE project_id = 'p1' AND period_s = 3600 AND agent_id = 'x'`,
    );
    t.same(
      components.rows[0].cost_components,
      { input: 69_000, output: 300_000 },
      'cost components in nano-USD, merged key by key across flushes',
    );

    const refused = item('t7');
    await t.rejects(
      write([item('t6'), { ...refused, trace: { ...refused.trace, status: 'lost' as 'error' } }]),
      { code: '23514' },
      'a trace the database refuses (a status outside its check) fails the batch',
    );
    await rollups.flush();
    t.same(await sums(db), more, 'a refused batch adds nothing');

    const upserted = await db.query<{ refusals: Record<string, number> }>(
      `SELECT refusals FROM metric_rollups WHERE project_id = 'p1' AND period_s = 60 AND agent_id = ''`,
    );
    await write([
      item('t8', { status: 'error', code: 'budget_exceeded' }),
      item('t9', { status: 'error', code: 'guardrail_blocked' }),
    ]);
    const merged = await db.query<{ refusals: Record<string, number> }>(
      `SELECT refusals FROM metric_rollups WHERE project_id = 'p1' AND period_s = 60 AND agent_id = ''`,
    );
    t.same(upserted.rows[0].refusals, { budget_exceeded: 1 });
    t.same(merged.rows[0].refusals, { budget_exceeded: 2, guardrail_blocked: 1 }, 'refusal counts merge code by code');

    t.test('a rollup flush whose reply was lost is retried as it was and counted once', async (t) => {
      const flaky = losingReplies(db, /INSERT INTO metric_rollups/);
      const flusher = new RollupFlusher(flaky, { log: silentLogger });
      const before = await sums(db);
      await writeTraceBatch(flaky, [item('f1', { agent: 'z' }), item('f2', { agent: 'z' })], flusher);
      flaky.lose = 1;
      await flusher.flush();
      t.equal(flaky.lose, 0, 'the first flush was applied, then its reply lost');
      await writeTraceBatch(flaky, [item('f3', { agent: 'z' })], flusher);
      await flusher.flush();
      t.equal(
        (await sums(db)).requests,
        before.requests + 2,
        'the retry added nothing; the newer trace waits for the next flush',
      );
      await flusher.flush();
      t.equal((await sums(db)).requests, before.requests + 3, 'three requests in all');
    });

    t.test('through the trace writer: a trace batch whose reply was lost is retried and counted once', async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-spill-'));
      t.teardown(() => rmSync(dir, { recursive: true, force: true }));
      const flaky = losingReplies(db, /INSERT INTO traces/);
      const before = await sums(db);
      flaky.lose = 2;
      const w = new TraceWriter(flaky, { log: silentLogger, spillDir: dir, flushMs: 10, maxBackoffMs: 50 });
      t.teardown(() => w.stop(0));
      for (let i = 0; i < 5; i++) w.enqueue(item(`w${i}`, { agent: 'y' }));
      w.start();
      await waitFor('five traces written', () => w.snapshot().traces_written >= 5, 20_000);
      t.equal(w.snapshot().write_failures, 2, 'two writes reported failed after committing');
      await w.flushRollups();
      t.equal((await sums(db)).requests, before.requests + 5, 'five requests, not fifteen');
      t.same(
        await db.query(`SELECT 1 FROM metric_rollup_flushes`).then((r) => r.rows.length > 0),
        true,
        'flushes are recorded',
      );
    });
  });
}
