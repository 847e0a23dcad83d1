// Times the trace list queries of the REST and public APIs, and the dashboard's trace list (its orders, filters and
// pages by cursor), over a generated data set (default 2 million traces, 3 generations each for a tenth of them) on
// PostgreSQL:
//   node bench/trace-list.ts [--traces 2000000] [--url postgres://postgres@127.0.0.1:5432/postgres]
// It creates a database of its own, fills it with generate_series, runs each query a few times and drops it.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migrate } from '../src/platform/store/migrate.ts';
import { listTracePage, type TracePageQuery } from '../src/platform/store/repos/trace-page.ts';
import { listTraces } from '../src/platform/store/repos/traces.ts';
import { scratchPostgres } from './scratch-database.ts';

const { values: opts } = parseArgs({
  options: {
    traces: { type: 'string', default: '2000000' },
    url: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const N = Number(opts.traces);
const { db, url, drop } = await scratchPostgres(opts.url, 'svc_bench_traces');
try {
  await migrate(db);
  await db.exec(`INSERT INTO organizations (id, name) VALUES ('o', 'o');
    INSERT INTO projects (id, organization_id, name) VALUES ('p', 'o', 'p'), ('q', 'o', 'q');
    INSERT INTO agents (id, project_id, name) VALUES ('a1', 'p', 'planner'), ('a2', 'p', 'coder');`);
  const t0 = performance.now();
  // A client of its own: the store's pool bounds each query to 15 s, and generating takes longer.
  const filler = new pg.Client({ connectionString: url });
  await filler.connect();
  await filler.query(`INSERT INTO traces (project_id, id, name, status, start_time, end_time, agent_id, user_id, source, input, output)
    SELECT CASE WHEN i % 10 = 0 THEN 'q' ELSE 'p' END, 't' || i, 'chat.completions',
      (ARRAY['completed','completed','completed','error','in_progress'])[1 + i % 5],
      now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval + ((i::bigint * 7919) % 60000) * interval '1 ms',
      CASE WHEN i % 3 = 0 THEN 'a1' WHEN i % 3 = 1 THEN 'a2' END, 'user-' || (i % 1000), 'gateway',
      '[{"role":"user","content":"hello"}]'::jsonb, '{"role":"assistant","content":"hi"}'::jsonb
    FROM generate_series(1, ${N}) AS i;
    INSERT INTO observations (project_id, id, trace_id, type, name, start_time, end_time, total_tokens, total_cost)
    SELECT 'p', 't' || i || '.' || k, 't' || i, 'GENERATION', 'attempt', now() - (i || ' seconds')::interval, now(), 25, (i % 97) * 0.00001
    FROM generate_series(1, ${N}, 10) AS i, generate_series(1, 3) AS k WHERE i % 10 <> 0;`);
  // As autovacuum leaves a table in steady state: statistics and the visibility map (index-only counts).
  await filler.query('VACUUM ANALYZE traces');
  await filler.query('VACUUM ANALYZE observations');
  await filler.end();
  console.log(`generated ${N} traces in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const day = new Date(Date.now() - 86_400_000).toISOString();
  const cases: [string, Parameters<typeof listTraces>[2]][] = [
    ['newest 100', { limit: 100, offset: 0 }],
    ['newest 1000', { limit: 1000, offset: 0 }],
    ['status=error, 100', { status: 'error', limit: 100, offset: 0 }],
    ['agent=planner, 100', { agentName: 'planner', limit: 100, offset: 0 }],
    ['last 24 h, 100', { from: day, limit: 100, offset: 0 }],
    ['user-7, 100', { userId: 'user-7', limit: 100, offset: 0 }],
    ['offset 10000, 100', { limit: 100, offset: 10_000 }],
  ];
  for (const [label, filter] of cases) await timed(label, () => listTraces(db, 'p', filter));
  const dashboardPage = (q: Partial<TracePageQuery>) =>
    listTracePage(db, 'p', { order: 'time', direction: 'desc', limit: 50, offset: 0, ...q });
  const dashboardCases: [string, Partial<TracePageQuery>][] = [
    ['dashboard: newest 50', {}],
    ['dashboard: slowest 50', { order: 'latency' }],
    ['dashboard: 10-20 s', { order: 'latency', minLatencyMs: 10_000, maxLatencyMs: 20_000 }],
    ['dashboard: costliest', { order: 'cost' }],
    ['dashboard: level ERROR', { level: 'ERROR' }],
    ['dashboard: user-7 slow', { userId: 'user-7', order: 'latency' }],
  ];
  for (const [label, q] of dashboardCases) {
    await timed(label, () => dashboardPage(q));
    // The 101st page (or the last before it), from the cursor the pager reaches it with.
    let page = await dashboardPage(q);
    let cursor: string | null = null;
    let pages = 1;
    for (; pages <= 100 && page.next; pages++) {
      cursor = page.next;
      page = await dashboardPage({ ...q, after: cursor, offset: 50 * pages });
    }
    const deep = cursor;
    if (deep)
      await timed(`${label}, p. ${pages}`, () => dashboardPage({ ...q, after: deep, offset: 50 * (pages - 1) }));
  }
} finally {
  await drop();
}

/** Runs `read` five times; prints the median. */
async function timed(label: string, read: () => Promise<unknown>): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    await read();
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  console.log(`${label.padEnd(34)} median ${times[2]!.toFixed(1)} ms (incl. total count)`);
}
