// The trace writer's cost per trace (docs/performance.md "Trace writer cost"):
//   node bench/trace-writer.ts [--traces 20000] [--rounds 3] [--backends pglite,postgres]
//                              [--url postgres://postgres@127.0.0.1:5432/postgres]
// Gateway traces of the bench's request (bench/measure.ts, answered as the fake upstream answers it, one attempt),
// built by gatewayTrace as the tracing plugin builds them, go into a fresh store per backend: an embedded PGlite in a
// temporary data directory, and a PostgreSQL database of the bench's own, dropped after. After a warm-up, each round
// times on fresh traces, in µs of process CPU per trace (PGlite runs on a thread of this process, so its CPU counts):
//   build    callerContext + gatewayTrace (the tracing plugin's onLog);
//   json     the JSON text of the batch's rows (tracing/trace-text.ts), made once per trace;
//   journal  the journal lines of those traces written and checkpointed (store/write-journal.ts), their text made;
//   copy     on PGlite, the COPY text of a batch (insertTraceBatch against a loader that loads nothing);
//   insert   insertTraceBatch on the store, JSON text made (PGlite: COPY text and COPY; PostgreSQL: the statement);
//   writer   the whole path on other traces: build, enqueue into a TraceWriter (journal, batches, rollups), stored.
// On PostgreSQL the server's CPU (its backends for the bench's database, from /proc) is shown beside the client's.
// On PGlite it then prints the bytes per trace of each relation, the WAL written per trace, and pg_wal on disk.
import { randomUUID } from 'node:crypto';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { DeploymentConfig, ModelGroupConfig } from '../src/platform/config/types.ts';
import { createRequestContext } from '../src/gateway/pipeline/context.ts';
import type { JsonObject, RequestContext } from '../src/plugin-api/contract.ts';
import { openDatabase, type Database, type Queryable } from '../src/platform/store/database.ts';
import { migrate } from '../src/platform/store/migrate.ts';
import { ensureOrganization, upsertProject } from '../src/platform/store/repos/projects.ts';
import { insertTraceBatch } from '../src/platform/store/repos/trace-batch.ts';
import { WriteJournal } from '../src/platform/store/write-journal.ts';
import { silentLogger } from '../src/platform/telemetry/logger.ts';
import { callerContext } from '../src/gateway/tracing/caller-context.ts';
import { gatewayTrace } from '../src/gateway/tracing/gateway-trace.ts';
import type { TraceItem } from '../src/gateway/tracing/trace-item.ts';
import { batchJson, journalLine } from '../src/gateway/tracing/trace-text.ts';
import { TraceWriter } from '../src/gateway/tracing/trace-writer.ts';
import { JSON_BODY, SVC_HEADERS } from './measure.ts';
import { scratchPostgres } from './scratch-database.ts';

const { values: opts } = parseArgs({
  options: {
    traces: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    backends: { type: 'string', default: 'pglite,postgres' },
    url: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const N = Number(opts.traces);
const ROUNDS = Number(opts.rounds);
const WARM_UP = 4_000;
/** The trace writer's default batch size. */
const BATCH = 500;
const PROJECT = 'default';

const REQUEST = JSON.parse(JSON_BODY) as JsonObject;
/** What a trace takes from the fake upstream's answer (bench/fake-upstream.ts): the message, and the usage. */
const ANSWER = {
  choices: [
    {
      message: { role: 'assistant', content: 'Hello! How can I help you today?', refusal: null },
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 24, completion_tokens: 9, total_tokens: 33, prompt_tokens_details: { cached_tokens: 0 } },
};
const DEPLOYMENT = {
  id: 'fake-upstream',
  provider: 'openai',
  base_url: 'http://127.0.0.1:9/v1',
  model: 'fake-model',
  price: { input_per_mtok: 0.15, output_per_mtok: 0.6 },
} as DeploymentConfig;
const DEPLOYMENTS = new Map([[DEPLOYMENT.id, DEPLOYMENT]]);
const GROUP: ModelGroupConfig = {
  name: 'bench',
  routing: { strategy: 'weighted', retries: 2, timeout_ms: 30_000, bench_ms: 30_000, max_backoff_ms: 2_000 },
  deployments: [DEPLOYMENT],
};

let clock = Date.now() - 3_600_000;

/** A served request of the bench as it reaches the tracing plugin's onLog. */
function servedRequest(): RequestContext {
  const now = (clock += 1);
  const { ctx } = createRequestContext({
    id: randomUUID(),
    route: 'chat',
    receivedAt: now - 3,
    overheadFrom: performance.now() - 3,
    headers: SVC_HEADERS,
    clientIp: '127.0.0.1',
    body: REQUEST,
    log: silentLogger,
  });
  ctx.attempts.push({ d: DEPLOYMENT.id, o: 'ok', ms: 2, startedAt: now - 2 });
  return Object.assign(ctx, {
    providerMs: 2,
    principal: { keyId: 'bench', alias: 'bench', projectId: PROJECT, modelGroups: ['bench'] },
    group: GROUP,
    servedGroup: 'bench',
    deployment: DEPLOYMENT.id,
    usage: ANSWER.usage,
    cost: (24 * 0.15 + 9 * 0.6) / 1e6,
    status: 200,
    errorCode: null,
    response: { kind: 'json', status: 200, body: ANSWER },
    source: 'upstream',
  } satisfies Partial<RequestContext>);
}

const requests = (n: number) => Array.from({ length: n }, servedRequest);
const build = (ctxs: RequestContext[]): TraceItem[] =>
  ctxs.map((ctx) =>
    gatewayTrace(ctx, {
      recordContent: true,
      now: ctx.receivedAt + 3,
      caller: callerContext(ctx.headers),
      deployments: DEPLOYMENTS,
    }),
  );
const batches = <T>(xs: T[]): T[][] =>
  Array.from({ length: Math.ceil(xs.length / BATCH) }, (_, i) => xs.slice(i * BATCH, (i + 1) * BATCH));
const rowsOf = (batch: TraceItem[]) => [batch.map((b) => b.trace), batch.flatMap((b) => b.observations)] as const;
const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Disk used by the files under `path`, counted in allocated blocks as `du` does, bytes. */
function diskUsage(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.blocks * 512;
  return readdirSync(path).reduce((sum, name) => sum + diskUsage(join(path, name)), stat.blocks * 512);
}

/** CPU µs the server's backends for this database have used (0 on PGlite, whose CPU is this process's). */
async function serverCpuUs(db: Database): Promise<number> {
  if (db.kind !== 'postgres') return 0;
  const r = await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()');
  let ticks = 0;
  for (const { pid } of r.rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The backend ended meanwhile.
    }
  }
  return ticks * 10_000;
}

/** The store's COPY path without the store: what building its text costs. */
const loadsNothing = (db: Queryable) => ({
  query: db.query,
  exec: db.exec,
  copyFrom: async (loads: readonly unknown[]) => loads.map(() => 0),
});

type Round = Record<string, number>;

async function round(db: Database, spillDir: string): Promise<Round> {
  const out: Round = {};
  const timed = async (name: string, work: () => unknown) => {
    const c = cpuUs();
    await work();
    out[name] = (cpuUs() - c) / N;
  };
  const ctxs = requests(N);
  let items: TraceItem[] = [];
  await timed('build', () => (items = build(ctxs)));
  await timed('json', () => batches(items).forEach((b) => batchJson(b)));
  const journal = new WriteJournal(spillDir, (err) => console.error(err));
  await timed('journal', () =>
    batches(items).forEach((b) => {
      journal.append(`${b.map(journalLine).join('\n')}\n`, b.length);
      journal.stored(b.length);
    }),
  );
  journal.discard();
  if (db.kind === 'pglite') {
    const dry = loadsNothing(db);
    await timed('copy', async () => {
      for (const b of batches(items)) await insertTraceBatch(dry, ...rowsOf(b));
    });
  }
  const server0 = await serverCpuUs(db);
  await timed('insert', async () => {
    for (const b of batches(items)) await insertTraceBatch(db, ...rowsOf(b), () => batchJson(b));
  });
  if (db.kind === 'postgres') out.insertServer = ((await serverCpuUs(db)) - server0) / N;

  const more = requests(N);
  const server1 = await serverCpuUs(db);
  const wall = performance.now();
  await timed('writer', async () => {
    const writer = new TraceWriter(db, { log: silentLogger, spillDir });
    writer.start();
    // Arrivals in batch-sized steps, the queue kept short of its capacity (past it traces would spill).
    for (const b of batches(build(more))) {
      for (const item of b) writer.enqueue(item);
      while (writer.snapshot().queue_depth > 2 * BATCH) await sleep(1);
    }
    while (writer.snapshot().traces_written < N) await sleep(1);
    await writer.stop();
  });
  out.writerWall = ((performance.now() - wall) * 1000) / N;
  if (db.kind === 'postgres') out.writerServer = ((await serverCpuUs(db)) - server1) / N;
  return out;
}

async function openBackend(backend: string): Promise<{ db: Database; dataDir?: string; close(): Promise<void> }> {
  if (backend === 'pglite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-trace-writer-'));
    const db = await openDatabase({ dataDir });
    return { db, dataDir, close: async () => (await db.close(), rmSync(dataDir, { recursive: true, force: true })) };
  }
  const { db, drop } = await scratchPostgres(opts.url, 'svc_bench_trace_writer');
  return { db, close: drop };
}

/** Bytes per stored trace of each trace and observation relation, the WAL written, and pg_wal on disk. */
async function diskReport(db: Database, dataDir: string, walStart: string, stored: number): Promise<void> {
  const wal = await db.query<{ bytes: unknown }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS bytes', [
    walStart,
  ]);
  const relations = await db.query<{ relname: string; bytes: unknown }>(
    `SELECT c.relname, pg_relation_size(c.oid) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relname ~ '^(traces|observations)' AND pg_relation_size(c.oid) > 0 ORDER BY 2 DESC`,
  );
  const perTrace = (bytes: unknown) => Math.round(Number(bytes) / stored);
  const sum = relations.rows.reduce((s, r) => s + perTrace(r.bytes), 0);
  console.log(
    `  disk per trace (${stored} traces): ${relations.rows.map((r) => `${r.relname} ${perTrace(r.bytes)}`).join(', ')}` +
      ` = ${sum} B in tables and indexes; WAL written ${perTrace(wal.rows[0].bytes)} B;` +
      ` pg_wal on disk ${(diskUsage(join(dataDir, 'pglite', 'pg_wal')) / 1e6).toFixed(0)} MB`,
  );
}

for (const backend of opts.backends.split(',')) {
  const { db, dataDir, close } = await openBackend(backend);
  const spillDir = mkdtempSync(join(tmpdir(), 'svc-bench-trace-spill-'));
  try {
    await migrate(db);
    await ensureOrganization(db, { id: 'org', name: 'Org' });
    await upsertProject(db, {
      id: PROJECT,
      organizationId: 'org',
      name: 'Default',
      maxKeyExpiryHours: 24,
      ingestionOnly: false,
    });
    const walStart = (await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn;
    // WebAssembly tiers up as it runs: measure PGlite's optimised code, as a serving process runs it.
    for (const b of batches(build(requests(WARM_UP)))) await insertTraceBatch(db, ...rowsOf(b));
    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await round(db, spillDir));
    const names = Object.keys(rounds[0]);
    console.log(
      `${backend}, µs per trace, median of ${ROUNDS} rounds of ${N}: ` +
        names.map((k) => `${k} ${median(rounds.map((r) => r[k])).toFixed(1)}`).join(', '),
    );
    console.log(`  rounds: ${names.map((k) => `${k} ${rounds.map((r) => r[k].toFixed(1)).join('/')}`).join('; ')}`);
    if (dataDir) await diskReport(db, dataDir, walStart, WARM_UP + 2 * N * ROUNDS);
  } finally {
    rmSync(spillDir, { recursive: true, force: true });
    await close();
  }
}
