// Dashboard metrics at scale (docs/performance.md "Dashboard metrics"):
//   node bench/rollups.ts [--traces 10000000] [--days 30] [--sample 20000] [--backends pglite,postgres]
//                         [--url postgres://postgres@127.0.0.1:5432/postgres]
// Per backend, in a fresh store: (1) writes `--sample` gateway traces as the trace writer does (each batch, then the
// rollups about once a second), timed against the traces alone (batches interleaved), once all of one agent and deployment and once spread over
// 24, and checks the metrics route's totals against sums over the stored traces; (2) fills the rollups as `--traces` traces over `--days` days would; (3) times the chart
// queries of each window, with and without groupBy, and the gateway panels (median of 5 after one warm-up).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { customWindow, namedWindow, type WindowName } from '../src/observability/metrics/metric-window.ts';
import { gatewayPanels, metricsChart } from '../src/observability/metrics/metrics-query.ts';
import type { GroupBy } from '../src/platform/store/repos/metric-rollups.ts';
import { RollupFlusher } from '../src/gateway/tracing/rollup-flusher.ts';
import { writeTraceBatch } from '../src/gateway/tracing/write-trace-batch.ts';
import { silentLogger } from '../src/platform/telemetry/logger.ts';
import { openDatabase, type Database } from '../src/platform/store/database.ts';
import { migrate } from '../src/platform/store/migrate.ts';
import { insertTraceBatch } from '../src/platform/store/repos/trace-batch.ts';
import { AGENTS, DEPLOYMENTS, fillRollups, sampleTraceItems } from './rollup-data.ts';
import { scratchPostgres } from './scratch-database.ts';

const { values: opts } = parseArgs({
  options: {
    traces: { type: 'string', default: '10000000' },
    days: { type: 'string', default: '30' },
    sample: { type: 'string', default: '20000' },
    backends: { type: 'string', default: 'pglite,postgres' },
    url: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

const BATCH = 500;
const SAMPLE_MINUTES = 20;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function openBackend(backend: string): Promise<{ db: Database; cleanup: () => Promise<void> }> {
  if (backend === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-rollups-'));
    const db = await openDatabase({ dataDir: dir });
    return { db, cleanup: async () => (await db.close(), rmSync(dir, { recursive: true, force: true })) };
  }
  const { db, drop } = await scratchPostgres(opts.url, 'svc_bench_rollups');
  return { db, cleanup: drop };
}

/**
 * Writes `n` traces both ways, batch by batch in turn, into projects of their own; returns ms of wall and process
 * CPU per 1000 traces (PGlite works on a thread of this process, so its CPU counts; PostgreSQL's does not).
 */
async function timeWrites(db: Database, n: number, now: number, oneKey: boolean, projects: [string, string]) {
  // Traffic of SAMPLE_MINUTES minutes in start order: each batch holds a minute or two, as under steady load.
  const withRollups = sampleTraceItems(projects[0], n, now, SAMPLE_MINUTES * 60_000, 11, oneKey);
  const plain = sampleTraceItems(projects[1], n, now, SAMPLE_MINUTES * 60_000, 12, oneKey);
  const wall = { rollups: 0, plain: 0 };
  const cpu = { rollups: 0, plain: 0 };
  // As the trace writer does: rollups summed per batch, written about once a second (counted with the batch).
  const flusher = new RollupFlusher(db, { log: silentLogger });
  let flushed = performance.now();
  for (let i = 0; i < n; i += BATCH) {
    for (const which of i % (2 * BATCH) === 0 ? (['rollups', 'plain'] as const) : (['plain', 'rollups'] as const)) {
      const batch = (which === 'rollups' ? withRollups : plain).slice(i, i + BATCH);
      const w0 = performance.now();
      const c0 = cpuMs();
      if (which === 'rollups') {
        await writeTraceBatch(db, batch, flusher);
        if (performance.now() - flushed >= 1000 || i + BATCH >= n) {
          await flusher.flush();
          flushed = performance.now();
        }
      } else
        await insertTraceBatch(
          db,
          batch.map((b) => b.trace),
          batch.flatMap((b) => b.observations),
        );
      wall[which] += performance.now() - w0;
      cpu[which] += cpuMs() - c0;
    }
  }
  const per1000 = (ms: number) => ((ms / n) * 1000).toFixed(1);
  const keys = oneKey ? '1 agent × deployment' : `${AGENTS.length} agents × ${DEPLOYMENTS.length} deployments`;
  console.log(
    `  writing ${n} traces (${keys}) in batches of ${BATCH}, per 1000 traces: traces alone ${per1000(wall.plain)} ms wall / ${per1000(cpu.plain)} ms CPU; with rollups ${per1000(wall.rollups)} ms wall / ${per1000(cpu.rollups)} ms CPU`,
  );
}

/** The metrics route's totals for the sample against sums over its stored traces and generations. */
async function checkSample(db: Database, now: number): Promise<boolean> {
  const w = customWindow(now - (SAMPLE_MINUTES + 1) * 60_000, now + 60_000)!;
  const chart = await metricsChart(db, 'sample', w, {});
  const byAgent = await metricsChart(db, 'sample', w, { groupBy: 'agent' });
  const r = await db.query<
    Record<string, unknown>
  >(`SELECT count(*) AS requests, count(*) FILTER (WHERE t.status = 'error') AS errors,
      COALESCE(sum(g.tokens), 0) AS tokens, COALESCE(sum(g.cost), 0) AS cost
    FROM traces t LEFT JOIN LATERAL (SELECT sum(o.total_tokens) AS tokens, sum(o.total_cost) AS cost FROM observations o
      WHERE o.project_id = t.project_id AND o.trace_id = t.id AND o.type = 'GENERATION') g ON true
    WHERE t.project_id = 'sample'`);
  const agents = await db.query<{ k: string; n: unknown }>(
    `SELECT COALESCE(agent_id, '') AS k, count(*) AS n FROM traces WHERE project_id = 'sample' GROUP BY 1`,
  );
  const stored = {
    requests: Number(r.rows[0].requests),
    errors: Number(r.rows[0].errors),
    tokens: Number(r.rows[0].tokens),
    cost: Number(r.rows[0].cost),
  };
  const t = chart.totals;
  const perAgent = new Map(byAgent.series.map((s) => [s.key, s.totals.requests]));
  const agentsMatch =
    agents.rows.every((a) => perAgent.get(a.k) === Number(a.n)) && perAgent.size === agents.rows.length;
  const ok =
    t.requests === stored.requests &&
    t.errors === stored.errors &&
    t.token_count === stored.tokens &&
    Math.abs(t.cost - stored.cost) < 1e-6 &&
    agentsMatch;
  console.log(
    `  sample: rollups ${t.requests} requests, ${t.errors} errors, ${t.token_count} tokens, $${t.cost.toFixed(6)}; traces ${stored.requests}, ${stored.errors}, ${stored.tokens}, $${stored.cost.toFixed(6)}; per agent ${agentsMatch ? 'equal' : 'DIFFERENT'} → ${ok ? 'equal' : 'MISMATCH'}`,
  );
  return ok;
}

async function timeQuery(run: () => Promise<unknown>): Promise<number> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    await run();
    times.push(performance.now() - s);
  }
  return median(times);
}

let failed = false;
for (const backend of opts.backends.split(',')) {
  console.log(`${backend}:`);
  const { db, cleanup } = await openBackend(backend);
  try {
    await migrate(db);
    await db.exec(`INSERT INTO organizations (id, name) VALUES ('o', 'o');
      INSERT INTO projects (id, organization_id, name) SELECT id, 'o', id FROM unnest(ARRAY['p', 'sample', 'plain', 'one-key', 'one-key-plain']) AS id;
      INSERT INTO agents (id, project_id, name) VALUES ${AGENTS.filter((a) => a !== '')
        .map((a) => `('${a}', 'sample', '${a}')`)
        .join(', ')};`);
    const now = Date.now();
    const n = Number(opts.sample);
    await timeWrites(db, n, now, true, ['one-key', 'one-key-plain']);
    await timeWrites(db, n, now, false, ['sample', 'plain']);
    if (!(await checkSample(db, now))) failed = true;

    const fill = await fillRollups(db, { projectId: 'p', traces: Number(opts.traces), days: Number(opts.days), now });
    await db.exec('ANALYZE metric_rollups');
    const size = await db.query<{ n: unknown; bytes: unknown }>(
      `SELECT count(*) AS n, pg_total_relation_size('metric_rollups') AS bytes FROM metric_rollups`,
    );
    console.log(
      `  filled ${fill.rows} rollup rows for ${fill.traces} traces over ${opts.days} days in ${fill.seconds.toFixed(1)} s; table ${(Number(size.rows[0].bytes) / 1e6).toFixed(0)} MB`,
    );

    const cases: [string, WindowName, GroupBy | undefined][] = [
      ['30d', '30d', undefined],
      ['30d groupBy agent', '30d', 'agent'],
      ['30d groupBy deployment', '30d', 'deployment'],
      ['7d', '7d', undefined],
      ['24h', '24h', undefined],
      ['24h groupBy model_group', '24h', 'model_group'],
      ['1h', '1h', undefined],
    ];
    for (const [label, window, groupBy] of cases) {
      const w = namedWindow(window, now);
      let points = 0;
      const ms = await timeQuery(async () => {
        const c = await metricsChart(db, 'p', w, { groupBy });
        points = c.series.reduce((s, x) => s + x.points.length, 0);
      });
      console.log(`  metrics ${label.padEnd(26)} ${ms.toFixed(1).padStart(7)} ms  (${points} points)`);
    }
    const panels = await timeQuery(() => gatewayPanels(db, 'p', namedWindow('30d', now)));
    console.log(`  gateway-panels 30d             ${panels.toFixed(1).padStart(7)} ms`);
  } finally {
    await cleanup();
  }
}
if (failed) process.exitCode = 1;
