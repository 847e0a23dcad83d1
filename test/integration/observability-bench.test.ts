// The observability bench (`npm run bench -- --observability`, bench/observability.ts) on a few hundred traces: the
// rows its SQL generator writes are the rows ingestion writes (and read back the same through the public API), and a
// whole run ingests every trace, times every query in both passes and answers what the data set says each should.
// No timing is asserted.
import t from 'tap';
import { runObservability } from '../../bench/observability.ts';
import { withBenchStore, type BenchStore } from '../../bench/observability/bench-store.ts';
import {
  OBSERVATIONS,
  customerOf,
  environmentOf,
  failedAt,
  nameOf,
  sessionOf,
  startOf,
  tagsOf,
  traceIdOf,
  userOf,
  type DataSet,
} from '../../bench/observability/data-set.ts';
import { generate } from '../../bench/observability/generate.ts';
import { ingest } from '../../bench/observability/ingest.ts';
import { queryCases } from '../../bench/observability/queries.ts';
import { POSTGRES_ADMIN_URL } from '../helpers/store.ts';

const STORE = { postgres: POSTGRES_ADMIN_URL };

async function rowsOf(store: BenchStore, table: string): Promise<unknown[]> {
  const r = await store.client.query(
    `SELECT to_jsonb(x) - 'created_at' - 'updated_at' AS row FROM ${table} x ORDER BY x.id`,
  );
  return r.rows.map((row) => row.row);
}

/** A public API answer without the times of writing, which differ between the two stores. */
async function read(store: BenchStore, path: string): Promise<unknown> {
  const res = await fetch(`${store.service.adminUrl}${path}`, { headers: { authorization: store.service.basicAuth } });
  const strip = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(strip)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([k]) => k !== 'createdAt' && k !== 'updatedAt')
              .map(([k, x]) => [k, strip(x)]),
          )
        : v;
  return { status: res.status, body: strip(await res.json()) };
}

t.test('rows written with SQL are the rows ingestion writes', async (t) => {
  const set: DataSet = { traces: 60, end: Date.now() };
  await withBenchStore(STORE, async (ingested) =>
    withBenchStore(STORE, async (generated) => {
      const all = await ingest(ingested, { set, from: 0, to: set.traces, senders: 2, block: set.traces });
      t.equal(all.acknowledged, set.traces, 'every trace ingested');
      const template = await ingest(generated, { set, from: 0, to: 1, senders: 1, block: 1 });
      t.equal(template.acknowledged, 1, 'the template trace ingested');
      await generate(generated.client, generated.db, set, { from: 1, to: set.traces });

      for (const [table, count] of [
        ['traces', set.traces],
        ['observations', set.traces * OBSERVATIONS.length],
        ['scores', set.traces],
      ] as const) {
        const want = await rowsOf(ingested, table);
        t.equal(want.length, count, `${table}: ${count} rows ingested`);
        t.same(await rowsOf(generated, table), want, `${table}: the generated rows equal the ingested ones`);
      }
      const failed = Array.from({ length: set.traces }, (_, i) => i).filter(failedAt);
      for (const i of [0, 1, ...failed, set.traces - 1]) {
        const path = `/api/public/traces/${traceIdOf(i)}`;
        const want = (await read(ingested, path)) as { status: number; body: { status?: string } };
        t.equal(want.status, 200, `trace ${i} is served`);
        t.same(await read(generated, path), want, `trace ${i} with its observations and scores reads the same`);
      }
      for (const path of [
        `/api/public/traces?limit=100`,
        `/api/public/v2/observations?limit=1000&fields=core,basic,io,metadata,model,usage,prompt,metrics,trace_context`,
        `/api/public/scores?limit=100`,
        `/api/public/sessions?limit=100`,
      ])
        t.same(await read(generated, path), await read(ingested, path), `${path} reads the same`);
    }),
  );
});

/** What the data set says request `path` answers: the items of the page, from the traces' own fields. */
function expectedRows(set: DataSet, path: string, k: number): number {
  const url = new URL(path, 'http://bench');
  const q = url.searchParams;
  const limit = Number(q.get('limit') ?? 50);
  const page = (count: number) => Math.max(0, Math.min(limit, count - (Number(q.get('page') ?? 1) - 1) * limit));
  const indexes = Array.from({ length: set.traces }, (_, i) => i);
  if (url.pathname.startsWith('/api/public/traces/')) return 1 + OBSERVATIONS.length + 1;
  if (url.pathname === '/api/public/sessions') return page(new Set(indexes.map(sessionOf)).size);
  if (url.pathname === '/api/public/v2/observations')
    return Math.max(0, Math.min(limit, set.traces * OBSERVATIONS.length - k * limit));
  if (url.pathname === '/v1/traces')
    return page(
      indexes.filter((i) => q.get('status') === null || (failedAt(i) ? 'error' : 'completed') === q.get('status'))
        .length,
    );
  const filter = JSON.parse(q.get('filter') ?? '[]') as { key: string; value: string }[];
  const matches = indexes.filter((i) => {
    const start = startOf(set, i);
    return (
      (q.get('name') === null || nameOf(i) === q.get('name')) &&
      (q.get('tags') === null || tagsOf(i).includes(q.get('tags')!)) &&
      (q.get('userId') === null || userOf(i) === q.get('userId')) &&
      (q.get('sessionId') === null || sessionOf(i) === q.get('sessionId')) &&
      (q.get('environment') === null || environmentOf(i) === q.get('environment')) &&
      (q.get('fromTimestamp') === null || start >= Date.parse(q.get('fromTimestamp')!)) &&
      (q.get('toTimestamp') === null || start < Date.parse(q.get('toTimestamp')!)) &&
      filter.every((c) => c.key === 'customer' && customerOf(i) === c.value)
    );
  });
  return page(matches.length);
}

t.test('a run ingests every trace, times every query twice and answers what the data set holds', async (t) => {
  const lines: string[] = [];
  const requests = 4;
  const r = await runObservability({
    ...STORE,
    traces: 300,
    senders: 2,
    requests,
    warmUp: 1,
    block: 100,
    log: (line) => lines.push(line),
  });
  t.equal(r.filledWith, 'ingestion');
  t.equal(r.ingest?.acknowledged, 300, 'every trace acknowledged');
  t.equal(r.ingest?.failedBatches, 0, 'no batch refused');
  t.same(
    r.ingest?.blocks.map((b) => b.traces),
    [100, 200, 300],
    'one line per block of 100 traces',
  );
  t.same(r.stored, { traces: 300, observations: 900, scores: 300 }, 'every acknowledged event stored');
  const cases = queryCases(r.set);
  const output = lines.join('\n');
  for (const pass of [r.fresh, r.analyzed]) {
    t.same(
      pass.timings.map((q) => q.name),
      cases.map((c) => c.name),
      `${pass.label}: a row for every query`,
    );
    for (const [n, q] of pass.timings.entries()) {
      t.equal(q.failures, 0, `${pass.label}, ${q.name}: every request answered 200`);
      const want = Array.from({ length: requests }, (_, k) => expectedRows(r.set, cases[n].path(k, undefined), k));
      t.same(q.rows, want, `${pass.label}, ${q.name}: the items the data set holds`);
    }
    t.same(
      pass.sizes.map((s) => s.table),
      ['traces', 'observations', 'scores'],
      `${pass.label}: the size of every trace table`,
    );
    t.ok(
      pass.sizes.every((s) => s.tableBytes > 0 && s.indexBytes > 0),
      `${pass.label}: sizes measured`,
    );
  }
  t.match(r.fresh.statistics, /^column statistics on 0 of \d+ trace tables/, 'the fresh pass runs without statistics');
  t.match(r.analyzed.statistics, /^column statistics on (\d+) of \1 trace tables/, 'the second pass runs analyzed');
  for (const c of cases)
    t.equal(
      output.split('\n').filter((l) => l.startsWith(`${c.name} `)).length,
      2,
      `the printed tables have a row for ${c.name}, in each pass`,
    );
  t.same(
    r.verdicts.filter((v) => v.target === 'store').map((v) => v.met),
    [true],
    'the stored rows are checked',
  );
  const expired = Array.from({ length: r.set.traces }, (_, i) => startOf(r.set, i)).filter(
    (start) => start < r.set.end - 29 * 86_400_000,
  ).length;
  t.ok(expired > 0);
  t.equal(r.retention.traces, expired, "the retention sweep deleted the traces past the project's 29 days");
  t.ok(r.retention.walBytesPerTrace > 0, 'the WAL it wrote is measured');
  t.ok(r.retention.vacuumSeconds > 0, 'and the VACUUM after it');
});
