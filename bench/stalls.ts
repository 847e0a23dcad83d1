// What blocks a server's event loop while it answers one connection: the bench's target runs pinned as in
// `npm run bench`, takes sequential requests for a while under the CPU profiler, and every stretch of main-thread work
// longer than a threshold (a "long task") is listed with what ran in it. A request that arrives during a long task
// waits for it, so these are what the tail at one connection is made of.
//
//   node bench/stalls.ts [--target governed] [--duration 10] [--threshold 1] [--top 12] [--no-pin] [--no-profile] [--large-prompt]
//                        [--node-flags='--trace-gc …'] [--node-env='NAME=value …'] (the server's Node flags and
//                        environment variables; default: the start script's)
//                        [--postgres URL] [--redis URL]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { isProject, shortUrl, type CallFrame, type Profile } from './cpu-profile.ts';
import { percentile, timedSequential } from './load.ts';
import { JSON_BODY, subject, warmUp } from './measure.ts';
import { parseEnvAssignments, pin, placement, ServerProcess, startSettings } from './processes.ts';
import { LARGE_PROMPT_BYTES, largeChatBody } from './sustained-scenarios.ts';
import { startTargets, targetsNamed } from './targets.ts';

const { values: opts } = parseArgs({
  options: {
    target: { type: 'string', default: 'governed' },
    duration: { type: 'string', default: '10' },
    threshold: { type: 'string', default: '1' },
    top: { type: 'string', default: '12' },
    'no-pin': { type: 'boolean', default: false },
    // Without the profiler: the loop and GC figures as they are, the long tasks unlisted.
    'no-profile': { type: 'boolean', default: false },
    // Instead of the CPU profile: where the allocations that outlive the young generation come from.
    promoted: { type: 'boolean', default: false },
    // Sequential 4 MiB prompts (the --sustained head-of-line scenario's) instead of the small request: what one large
    // body costs the serving thread, step by step.
    'large-prompt': { type: 'boolean', default: false },
    'node-flags': { type: 'string', default: startSettings().flags },
    'node-env': { type: 'string', default: startSettings().env },
    postgres: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    redis: { type: 'string', default: 'redis://127.0.0.1:6379' },
  },
});

interface SamplingNode {
  callFrame: CallFrame;
  selfSize: number;
  children: SamplingNode[];
}

/** Bytes promoted per allocation site, most first: each site named by its frame and the nearest project frame. */
export function promotedSites(head: SamplingNode): [string, number][] {
  const sites = new Map<string, number>();
  const walk = (node: SamplingNode, project: string | undefined) => {
    const here = isProject(node.callFrame) ? nameOf(node.callFrame) : project;
    if (node.selfSize > 0) {
      const key = `${nameOf(node.callFrame)}${here && here !== nameOf(node.callFrame) ? `  (in ${here})` : ''}`;
      sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
    }
    for (const c of node.children) walk(c, here);
  };
  walk(head, undefined);
  return [...sites].sort((a, b) => b[1] - a[1]);
}

export interface LongTask {
  ms: number;
  /** Where the task's time went: the frames with the most self time, most first. */
  hot: string[];
  /** The outermost project function on the task's stacks: what started the work. */
  entry: string;
}

const nameOf = (cf: CallFrame) =>
  `${cf.functionName || '(anonymous)'} ${shortUrl(cf.url) || '(native)'}${cf.url ? `:${cf.lineNumber + 1}` : ''}`;

/** The runs of consecutive non-idle samples on the main thread that last at least `thresholdMs`. */
export function longTasks(profile: Profile, thresholdMs: number): LongTask[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const outermostProject = (id: number): string | undefined => {
    let found: string | undefined;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const cf = byId.get(at)!.callFrame;
      if (isProject(cf)) found = nameOf(cf);
    }
    return found;
  };
  const tasks: LongTask[] = [];
  let run: number[] = [];
  let runUs = 0;
  const close = () => {
    if (runUs >= thresholdMs * 1000) {
      const self = new Map<string, number>();
      const entries = new Map<string, number>();
      for (const id of run) {
        const name = nameOf(byId.get(id)!.callFrame);
        self.set(name, (self.get(name) ?? 0) + 1);
        const entry = outermostProject(id) ?? '(no project code)';
        entries.set(entry, (entries.get(entry) ?? 0) + 1);
      }
      const ranked = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ×${v}`);
      tasks.push({ ms: runUs / 1000, hot: ranked(self).slice(0, 4), entry: ranked(entries).slice(0, 2).join('; ') });
    }
    run = [];
    runUs = 0;
  };
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i])!;
    // A sample's delta is the time since the previous one: the previous sample's stretch ends with it.
    if (node.callFrame.functionName === '(idle)') close();
    else {
      run.push(node.id);
      runUs += profile.timeDeltas[i] ?? 0;
    }
  }
  close();
  return tasks.sort((a, b) => b.ms - a.ms);
}

async function main(): Promise<void> {
  const place = placement(availableParallelism(), !opts['no-pin']);
  const upstream = await ServerProcess.start('upstream', []);
  if (place.targetCpu) pin(process.pid, place.loadCpu) && pin(upstream.pid, place.upstreamCpu);
  const spec = targetsNamed([opts.target]).filter((x) => x.name === opts.target);
  const started = await startTargets(spec, upstream.url, {
    postgres: opts.postgres,
    redis: opts.redis,
    deployments: 1,
    nodeFlags: opts['node-flags'].split(' ').filter(Boolean),
    nodeEnv: parseEnvAssignments(opts['node-env']),
  });
  const dir = mkdtempSync(join(tmpdir(), 'svc-stalls-'));
  try {
    const [t] = started.targets;
    if (!t.proc) throw new Error(`${opts.target}: ${t.unavailable}`);
    const proc = t.proc as ServerProcess;
    if (place.targetCpu) pin(proc.pid, place.targetCpu);
    const s = subject(opts.target, proc);
    await warmUp(s, 32);
    await proc.observeStart();
    const profiled = !opts['no-profile'] && !opts.promoted;
    if (profiled) await proc.startProfile();
    if (opts.promoted) await proc.startPromoted();
    const seconds = Number(opts.duration);
    const body = opts['large-prompt'] ? largeChatBody(LARGE_PROMPT_BYTES).toString('utf8') : JSON_BODY;
    const lat = await timedSequential(s.target, body, seconds, '}');
    const path = join(dir, 'main.cpuprofile');
    if (profiled) await proc.stopProfile(path);
    const promoted = opts.promoted ? ((await proc.stopPromoted()) as { head: SamplingNode }) : undefined;
    const loop = await proc.observeStop();
    const tasks = profiled ? longTasks(JSON.parse(readFileSync(path, 'utf8')) as Profile, Number(opts.threshold)) : [];
    const total = tasks.reduce((sum, x) => sum + x.ms, 0);
    console.log(
      `${opts.target}, 1 connection, ${seconds} s (${place.description}): ${lat.count} requests, p50 ` +
        `${percentile(lat.total, 50).toFixed(3)} ms, p99 ${percentile(lat.total, 99).toFixed(3)} ms, max ` +
        `${percentile(lat.total, 100).toFixed(2)} ms; loop delay p99 ${loop.loopP99.toFixed(2)} ms, max ` +
        `${loop.loopMax.toFixed(2)} ms; GC ${loop.gcCount} pauses, max ${loop.gcMax.toFixed(2)} ms`,
    );
    if (promoted) {
      const sites = promotedSites(promoted.head);
      const total = sites.reduce((sum, [, bytes]) => sum + bytes, 0);
      console.log(`promoted (sampled): ${(total / 1024).toFixed(0)} KB, ${(total / lat.count).toFixed(0)} B/request`);
      for (const [site, bytes] of sites.slice(0, Number(opts.top)))
        console.log(`  ${(bytes / 1024).toFixed(0).padStart(7)} KB  ${site}`);
    }
    if (!profiled) return;
    console.log(
      `long tasks (>= ${opts.threshold} ms of main-thread work without a pause): ${tasks.length}, ` +
        `${total.toFixed(0)} ms in all`,
    );
    for (const task of tasks.slice(0, Number(opts.top))) {
      console.log(`\n  ${task.ms.toFixed(2)} ms  from ${task.entry}`);
      for (const h of task.hot) console.log(`      ${h}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await started.release();
    await upstream.stop();
  }
}

if (import.meta.main) await main();
