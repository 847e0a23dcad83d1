// Entry point of one bench server process, started by bench/run.ts (bench/processes.ts) with an IPC channel:
//   node bench/server-process.ts upstream   (SVC_BENCH_UPSTREAM_DELAY_MS: each answer that many ms late; default 0)
//   node bench/server-process.ts floor   <upstream base URL>
//   node bench/server-process.ts gateway <upstream base URL>
//   node bench/server-process.ts gateway-traced <upstream base URL>   (tracing plugin on)
//   node bench/server-process.ts gateway-anthropic <upstream base URL> (an Anthropic deployment: translated)
// The gateway's store and policies come from the environment (bench/gateway-target.ts). It reports
// {type:'ready', url} once listening and answers each request {type, id} with {type:'reply', id, value}:
// 'cpu' its process.cpuUsage(); 'memory' its RSS and heap; 'observe-start'/'observe-stop' event-loop delay
// (perf_hooks.monitorEventLoopDelay) and GC pauses over the window between them; 'store' the gateway's trace count
// and data directory size; 'settle' once its background work (trace writes) is done; 'profile-start' and
// 'profile-stop' a V8 CPU profile written to the given path. It closes and exits on {type:'stop'} or when the
// parent goes away.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

export type Role = 'upstream' | 'floor' | 'gateway' | 'gateway-traced' | 'gateway-anthropic';

export type Request =
  | { type: 'cpu' | 'memory' | 'observe-start' | 'observe-stop' | 'store' | 'settle' | 'profile-start' }
  | { type: 'promoted-start' | 'promoted-stop' }
  | { type: 'profile-stop'; path: string };
export type ToChild = (Request & { id: number }) | { type: 'stop' };
export type FromChild =
  { type: 'ready'; url: string } | { type: 'reply'; id: number; value: unknown } | { type: 'stopped' };

/** Microseconds of CPU, as process.cpuUsage() gives them. */
export interface CpuReply {
  user: number;
  system: number;
}

/** Bytes. */
export interface MemoryReply {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  /** The highest RSS the process has had, from getrusage. */
  maxRss: number;
}

/** Milliseconds, over the window between 'observe-start' and 'observe-stop'. */
export interface ObserveReply {
  /** How late the event loop ran a 1 ms timer: the loop was blocked this long. */
  loopP50: number;
  loopP99: number;
  loopMax: number;
  gcTotal: number;
  gcMax: number;
  gcCount: number;
  wall: number;
}

export interface StoreReply {
  traces: number;
  /** Disk used by the embedded store's data directory (blocks, as du counts), bytes; undefined on PostgreSQL. */
  dataDirBytes?: number;
}

export interface ServedTarget {
  url: string;
  close(): Promise<void>;
  settle?(): Promise<void>;
  storeStats?(): Promise<StoreReply>;
}

/** Sampling interval of the CPU profiler, microseconds. */
const PROFILE_INTERVAL_US = 250;
/** Timer interval of the event-loop delay monitor, ms; each sample is the interval plus the delay. */
const LOOP_RESOLUTION_MS = 1;

async function start(role: Role, upstreamUrl: string | undefined): Promise<ServedTarget> {
  // Imported on demand: the floor and upstream processes never load the gateway's code.
  if (role === 'upstream')
    return (await import('./fake-upstream.ts')).startFakeUpstream(
      0,
      Number(process.env.SVC_BENCH_UPSTREAM_DELAY_MS ?? 0),
    );
  if (role === 'floor') return (await import('./floor-proxy.ts')).startFloorProxy(upstreamUrl!);
  const { startGatewayTarget } = await import('./gateway-target.ts');
  if (role === 'gateway') return startGatewayTarget(upstreamUrl!, { tracing: false });
  if (role === 'gateway-traced') return startGatewayTarget(upstreamUrl!, { tracing: true });
  if (role === 'gateway-anthropic') return startGatewayTarget(upstreamUrl!, { tracing: false, provider: 'anthropic' });
  throw new Error(`unknown role '${String(role)}'`);
}

/** Event-loop delay and GC pauses between start() and stop(). */
function observer() {
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  let gc = { total: 0, max: 0, count: 0 };
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.total += entry.duration;
      gc.max = Math.max(gc.max, entry.duration);
      gc.count++;
    }
  });
  let since = 0;
  const delay = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
  return {
    start() {
      gc = { total: 0, max: 0, count: 0 };
      loop.reset();
      loop.enable();
      gcObserver.observe({ entryTypes: ['gc'] });
      since = performance.now();
    },
    stop(): ObserveReply {
      loop.disable();
      gcObserver.disconnect();
      return {
        loopP50: delay(loop.percentile(50)),
        loopP99: delay(loop.percentile(99)),
        loopMax: delay(loop.max),
        gcTotal: gc.total,
        gcMax: gc.max,
        gcCount: gc.count,
        wall: performance.now() - since,
      };
    },
  };
}

async function main(): Promise<void> {
  const [role, upstreamUrl] = process.argv.slice(2) as [Role, string | undefined];
  if (!process.send)
    throw new Error('bench/server-process.ts must be started by bench/run.ts (it needs an IPC channel)');
  const send = (m: FromChild) => process.send!(m);
  const target = await start(role, upstreamUrl);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await Promise.race([target.close(), new Promise((r) => setTimeout(r, 2000))]);
    if (process.connected) send({ type: 'stopped' });
    process.exit(0);
  };
  const observed = observer();
  let session: Session | undefined;
  const answer = async (m: Request): Promise<unknown> => {
    switch (m.type) {
      case 'cpu':
        return process.cpuUsage() satisfies CpuReply;
      case 'memory': {
        const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
        return {
          rss,
          heapUsed,
          heapTotal,
          external,
          maxRss: process.resourceUsage().maxRSS * 1024,
        } satisfies MemoryReply;
      }
      case 'observe-start':
        return observed.start();
      case 'observe-stop':
        return observed.stop();
      case 'store':
        return (await target.storeStats?.()) ?? null;
      case 'settle':
        return target.settle?.();
      case 'profile-start':
        session = new Session();
        session.connect();
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: PROFILE_INTERVAL_US });
        await session.post('Profiler.start');
        return;
      case 'promoted-start':
        // Sampled allocations that outlive the young generation (promoted), whether or not a major GC frees them later.
        session = new Session();
        session.connect();
        await session.post('HeapProfiler.enable');
        await session.post('HeapProfiler.startSampling', {
          samplingInterval: 8192,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: false,
        });
        return;
      case 'promoted-stop': {
        const { profile } = await session!.post('HeapProfiler.stopSampling');
        session!.disconnect();
        return profile;
      }
      case 'profile-stop': {
        const { profile } = await session!.post('Profiler.stop');
        writeFileSync(m.path, JSON.stringify(profile));
        session!.disconnect();
        return;
      }
    }
  };
  process.on('message', (m: ToChild) => {
    if (m.type === 'stop') void stop();
    else void answer(m).then((value) => send({ type: 'reply', id: m.id, value: value ?? null }));
  });
  process.on('disconnect', () => void stop());
  send({ type: 'ready', url: target.url });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
