// `npm run bench -- --soak N`: N unique requests (a random id in the user message, so no cache can help) at 32
// connections through one target (default `governed`, the default configuration), in blocks of 100,000 (--soak-block). Prints
// req/s, p99, server CPU per request, event-loop delay and RSS per block, then the growth figures against the
// issue-19 goals: RSS growth from the end of the first block to the end < 10%, the last block's req/s within 15%
// of the first's, and on the embedded store the disk used per stored trace.
import { throughput, percentile } from './load.ts';
import { sanityCheck, subject, UNIQUE_BODY, warmUp } from './measure.ts';
import { otherLoad, pin, type Placement, type ServerProcess } from './processes.ts';
import { f } from './report.ts';
import { redact, startTargets, targetsNamed, type Backends } from './targets.ts';

export interface SoakOptions {
  requests: number;
  /** Requests per printed block (100,000 by default). */
  block: number;
  target: string;
  connections: number;
  backends: Backends;
  upstream: ServerProcess;
  place: Placement;
  cores: number;
  machine(): string;
}

const GOALS = { rssGrowth: 0.1, rpsDrift: 0.15 };
const mb = (bytes: number) => (bytes / 1048576).toFixed(0);

/** Returns whether every goal was met. */
export async function runSoak(o: SoakOptions): Promise<boolean> {
  const [spec] = targetsNamed([o.target]).filter((t) => t.name === o.target);
  if (!spec?.store) throw new Error(`--soak-target takes a gateway target, not '${o.target}'`);
  const started = await startTargets([spec], o.upstream.baseUrl, o.backends);
  const [t] = started.targets;
  try {
    if (!t.proc) {
      console.log(`soak: ${spec.name} unavailable: ${t.unavailable}`);
      return false;
    }
    const proc = t.proc;
    if (o.place.targetCpu) pin(proc.pid, o.place.targetCpu);
    const s = subject(spec.name, proc);
    const rssStart = await proc.rss();
    const storeStart = await proc.storeStats();
    await sanityCheck(s);
    await warmUp(s, o.connections);
    console.log(`svc bench soak: ${o.machine()}`);
    const busy = await otherLoad([process.pid, o.upstream.pid, proc.pid], o.cores);
    if (busy > 0.1)
      console.log(`NOTE: other processes are using ${busy.toFixed(2)} cores as the soak starts; expect noise.`);
    console.log(
      `${spec.name}: ${spec.description}` +
        (spec.store === 'postgres' ? ` (${redact(o.backends.postgres)}, a database for this run)` : ''),
    );
    console.log(
      `${o.requests.toLocaleString('en')} unique requests at ${o.connections} connections in blocks of ` +
        `${Math.min(o.block, o.requests).toLocaleString('en')}; RSS after start ${mb(rssStart)} MB\n`,
    );
    const header = ['requests', 'req/s', 'p99 ms', 'CPU µs/req', 'loop p99/max ms', 'GC %', 'RSS MB', 'heap MB'];
    const row = (cells: string[]) => cells.map((c, i) => c.padStart(Math.max(header[i].length, 9))).join('  ');
    console.log(row(header));
    const blocks: { rps: number; rss: number }[] = [];
    let bad = 0;
    for (let sent = 0; sent < o.requests;) {
      const amount = Math.min(o.block, o.requests - sent);
      const c0 = await proc.cpu();
      await proc.observeStart();
      const r = await throughput(s.target, UNIQUE_BODY, { connections: o.connections, amount });
      const inside = await proc.observeStop();
      const c1 = await proc.cpu();
      const memory = await proc.memory();
      sent += amount;
      bad += r.bad;
      blocks.push({ rps: r.rps, rss: memory.rss });
      const line = [
        sent.toLocaleString('en'),
        f(r.rps, 0),
        f(percentile(r.latency, 99), 1),
        f((c1 - c0) / r.ok, 0),
        `${f(inside.loopP99, 1)} / ${f(inside.loopMax, 1)}`,
        f((inside.gcTotal / inside.wall) * 100, 1),
        mb(memory.rss),
        mb(memory.heapUsed),
      ];
      console.log(row(line));
    }
    const settleStart = performance.now();
    await proc.settle();
    const settleS = (performance.now() - settleStart) / 1000;
    const store = await proc.storeStats();
    const rssEnd = await proc.rss();
    console.log('');
    const first = blocks[0];
    const last = blocks.at(-1)!;
    const rssGrowth = (rssEnd - first.rss) / first.rss;
    const rpsDrift = last.rps / first.rps - 1;
    const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
    console.log(`trace writes still running after the last request: ${settleS.toFixed(1)} s`);
    console.log(
      `RSS: ${mb(first.rss)} MB after the first block, ${mb(rssEnd)} MB at the end: ` +
        `${f(rssGrowth * 100, 1)}% growth (goal < ${GOALS.rssGrowth * 100}%: ${verdict(rssGrowth < GOALS.rssGrowth)})`,
    );
    console.log(
      `req/s: ${f(first.rps, 0)} in the first block, ${f(last.rps, 0)} in the last: ${f(rpsDrift * 100, 1)}% ` +
        `(goal within ${GOALS.rpsDrift * 100}%: ${verdict(Math.abs(rpsDrift) <= GOALS.rpsDrift)})`,
    );
    if (store) {
      console.log(`store: ${store.traces.toLocaleString('en')} traces (the sanity check and warm-up included)`);
      if (store.dataDirBytes !== undefined && storeStart?.dataDirBytes !== undefined) {
        const added = store.dataDirBytes - storeStart.dataDirBytes;
        console.log(
          `disk: data directory ${mb(store.dataDirBytes)} MB (${mb(storeStart.dataDirBytes)} MB once started): ` +
            `${f(added / (store.traces - storeStart.traces) / 1024, 2)} KB per stored trace`,
        );
      }
    }
    if (bad > 0) console.log(`WARNING: ${bad} requests failed or had an unexpected body.`);
    if (blocks.length < 2) console.log('NOTE: one block only; the growth figures need at least two.');
    return bad === 0 && rssGrowth < GOALS.rssGrowth && Math.abs(rpsDrift) <= GOALS.rpsDrift;
  } finally {
    await started.release();
  }
}
