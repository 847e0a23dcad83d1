// "Stopping Postgres for 30 s under load loses no trace": the whole service with its store behind a TCP proxy, eight
// clients looping chat requests, and the proxy cutting every database connection for SVC_TRACE_OUTAGE_MS (default
// 30000). Requests keep being served from memory; traces spill to disk as soon as a write fails, and are replayed on
// recovery.
import t from 'tap';
import { openDatabase } from '../../src/platform/store/database.ts';
import { baseConfig, chatBody, demoGroup, postJson, startTestService } from '../helpers/service.ts';
import { freshPostgresDatabase } from '../helpers/store.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { sleep } from '../helpers/wait-for.ts';

const OUTAGE_MS = Number(process.env.SVC_TRACE_OUTAGE_MS ?? 30_000);
const CLIENTS = 8;
const QUEUE_CAPACITY = 200;

interface TraceStats {
  queue_depth: number;
  spilled: number;
  replayed: number;
  dropped: number;
  spill_files: number;
  write_failures: number;
  traces_written: number;
  database: string;
}

t.test(`no trace lost while Postgres is cut for ${OUTAGE_MS / 1000} s under load`, async (t) => {
  t.setTimeout(OUTAGE_MS + 90_000);
  const url = await freshPostgresDatabase(t);
  const proxy = await startTcpProxy(t);
  const { gatewayUrl, adminUrl } = await startTestService(
    t,
    baseConfig({
      // A steady load, not a flood: each answer takes 20 ms.
      model_groups: [demoGroup({ price: { input_per_mtok: 1, output_per_mtok: 2 }, mock: { latency_ms: 20 } })],
      plugins: [{ use: 'auth' }, { use: 'router' }, { use: 'tracing' }],
      store: { postgres_url: proxy.through(url), trace_queue_capacity: QUEUE_CAPACITY, trace_batch_size: 50 },
    }),
  );
  const direct = await openDatabase({ postgresUrl: url, dataDir: '' });
  t.teardown(() => direct.close());
  const traceStats = async (): Promise<TraceStats> =>
    ((await (await fetch(`${adminUrl}/metrics`)).json()) as any).telemetry.traces;
  const health = async () => (await fetch(`${adminUrl}/health`)).status;
  t.equal(await health(), 200, '/health answers 200 before the outage');

  // The load: every client loops until told to stop, recording each served request id.
  const served = new Set<string>();
  const failures: string[] = [];
  let servedDuringCut = 0;
  let running = true;
  const client = async () => {
    while (running) {
      try {
        const res = await postJson(
          gatewayUrl,
          '/v1/chat/completions',
          chatBody({ messages: [{ role: 'user', content: `question ${served.size}` }] }),
        );
        const text = await res.text();
        const id = res.headers.get('x-svc-request-id');
        if (res.status === 200 && id) {
          served.add(id);
          if (proxy.isCut) servedDuringCut++;
        } else failures.push(`${res.status} ${text.slice(0, 200)}`);
      } catch (err) {
        failures.push(`request error: ${(err as Error).message}`);
      }
    }
  };
  const load = Array.from({ length: CLIENTS }, client);

  await sleep(2_000);
  t.ok(served.size > 0, `${served.size} requests served before the outage`);

  proxy.cut();
  const cutAt = performance.now();
  let maxSpilled = 0;
  let sawUnhealthy = false;
  while (performance.now() - cutAt < OUTAGE_MS) {
    const s = await traceStats();
    maxSpilled = Math.max(maxSpilled, s.spilled);
    if ((await health()) === 503) sawUnhealthy = true;
    await sleep(250);
  }
  const duringOutage = await traceStats();
  proxy.restore();
  const servedInOutage = servedDuringCut;

  t.ok(sawUnhealthy, '/health answered 503 while the database was cut');
  t.ok(servedInOutage > 0, `${servedInOutage} requests served while the database was cut`);
  t.equal(
    duringOutage.queue_depth,
    0,
    'nothing waits in memory while the database is cut: the queue went to the spill file',
  );
  t.ok(maxSpilled > 0, `/metrics showed ${maxSpilled} traces spilled during the outage`);
  t.ok(duringOutage.write_failures > 0, 'writes failed and were retried');
  t.equal(duringOutage.database, 'failing');

  const restoredAt = performance.now();
  while ((await health()) !== 200) {
    if (performance.now() - restoredAt > 20_000) throw new Error('/health did not recover within 20 s of the restore');
    await sleep(100);
  }
  t.pass('/health answers 200 after the restore');
  // Keep the load on a little while the writer catches up, then stop it.
  await sleep(1_000);
  running = false;
  await Promise.all(load);

  const drainStarted = performance.now();
  let final = await traceStats();
  while (!(final.queue_depth === 0 && final.spill_files === 0 && final.database === 'ok')) {
    if (performance.now() - drainStarted > 60_000)
      throw new Error(`the trace writer did not drain: ${JSON.stringify(final)}`);
    await sleep(100);
    final = await traceStats();
  }

  t.same(failures.slice(0, 5), [], `no request failed (${failures.length} failures)`);
  t.equal(final.dropped, 0, '/metrics: nothing dropped');
  t.ok(final.replayed > 0, `${final.replayed} traces replayed from spill files`);
  t.equal(final.replayed, final.spilled, 'every spilled trace replayed');

  const rows = await direct.query<{ id: string; n: unknown }>(
    "SELECT id, count(*) AS n FROM traces WHERE project_id = 'default' GROUP BY id",
  );
  const stored = new Map(rows.rows.map((r) => [r.id, Number(r.n)]));
  const missing = [...served].filter((id) => !stored.has(id));
  t.equal(
    missing.length,
    0,
    `every one of the ${served.size} served requests has its trace (${missing.length} missing)`,
  );
  t.same(
    [...stored.values()].filter((n) => n !== 1),
    [],
    'each stored exactly once',
  );
  t.equal(stored.size, served.size, 'and no other trace');
  const obs = await direct.query<{ n: unknown }>(
    "SELECT count(DISTINCT trace_id) AS n FROM observations WHERE project_id = 'default'",
  );
  t.equal(Number(obs.rows[0].n), served.size, 'every trace has its generation');

  const prometheus = await (await fetch(`${adminUrl}/metrics?format=prometheus`)).text();
  const metric = (name: string) =>
    Number(/^(\S+) (\S+)$/m.exec(prometheus.split('\n').find((l) => l.startsWith(`${name} `)) ?? '')?.[2]);
  t.equal(metric('svc_traces_spilled_total'), final.spilled, 'Prometheus: svc_traces_spilled_total');
  t.equal(metric('svc_traces_replayed_total'), final.replayed, 'Prometheus: svc_traces_replayed_total');
  t.equal(metric('svc_traces_dropped_total'), 0, 'Prometheus: svc_traces_dropped_total');
  t.equal(metric('svc_trace_queue_depth'), 0, 'Prometheus: svc_trace_queue_depth');
  t.ok(metric('svc_trace_batches_total') > 0, 'Prometheus: svc_trace_batches_total');
});
