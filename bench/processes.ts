// The processes the bench measures, behind one interface: the bench's own server processes
// (bench/server-process.ts, asked over IPC) and the peers (another gateway's command, read from /proc).
// Also CPU pinning with taskset and the machine-wide CPU counters the noise figure comes from.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type {
  CpuReply,
  FromChild,
  MemoryReply,
  ObserveReply,
  Request,
  Role,
  StoreReply,
  ToChild,
} from './server-process.ts';

export interface Measured {
  readonly pid: number;
  /** Origin the load goes to, e.g. http://127.0.0.1:4000. */
  readonly url: string;
  /** CPU time (user + system) the process (and, for a peer, its children) has used so far, µs. */
  cpu(): Promise<number>;
  /** Resident memory now, bytes (with its children's, for a peer). */
  rss(): Promise<number>;
  /** Heap figures and peak RSS, where the process can tell. */
  memory(): Promise<MemoryReply | undefined>;
  /** Starts and stops watching event-loop delay and GC pauses; undefined where the process cannot be asked. */
  observeStart(): Promise<void>;
  observeStop(): Promise<ObserveReply | undefined>;
  /** Resolves once background work for the requests so far (trace writes) is done. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 120_000;

/** One bench server process (bench/server-process.ts). */
export class ServerProcess implements Measured {
  readonly role: Role;
  readonly child: ChildProcess;
  url = '';
  private nextId = 0;
  private readonly waiting = new Map<number, (value: unknown) => void>();

  private constructor(role: Role, child: ChildProcess) {
    this.role = role;
    this.child = child;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /**
   * Starts `role` with `env` added to this process's environment and `nodeFlags` before its entry point. Rejects with the end of its stderr when it
   * exits, or does not report ready within two minutes.
   */
  static start(
    role: Role,
    args: string[],
    env: Record<string, string> = {},
    nodeFlags: string[] = [],
  ): Promise<ServerProcess> {
    const entry = fileURLToPath(new URL('./server-process.ts', import.meta.url));
    const child = spawn(process.execPath, [...nodeFlags, entry, role, ...args], {
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      env: { ...process.env, ...env },
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    const proc = new ServerProcess(role, child);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill();
        reject(new Error(`${role} server did not report ready within ${READY_TIMEOUT_MS / 1000} s`));
      }, READY_TIMEOUT_MS);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${role} server exited with code ${code} before it was ready: ${lastError(stderr)}`));
      });
      child.on('message', (m: FromChild) => {
        if (m.type === 'ready') {
          clearTimeout(timer);
          proc.url = new URL(m.url).origin;
          resolve(proc);
        } else if (m.type === 'reply') {
          proc.waiting.get(m.id)?.(m.value);
          proc.waiting.delete(m.id);
        }
      });
    });
  }

  /** The fake upstream's OpenAI base URL. */
  get baseUrl(): string {
    return `${this.url}/v1`;
  }

  async cpu(): Promise<number> {
    const { user, system } = await this.ask<CpuReply>({ type: 'cpu' });
    return user + system;
  }

  async rss(): Promise<number> {
    return (await this.memory()).rss;
  }

  memory(): Promise<MemoryReply> {
    return this.ask<MemoryReply>({ type: 'memory' });
  }

  async observeStart(): Promise<void> {
    await this.ask({ type: 'observe-start' });
  }

  observeStop(): Promise<ObserveReply> {
    return this.ask<ObserveReply>({ type: 'observe-stop' });
  }

  async settle(): Promise<void> {
    await this.ask({ type: 'settle' });
  }

  /** Stored traces, and the embedded store's disk use; null for a process without a store. */
  storeStats(): Promise<StoreReply | null> {
    return this.ask<StoreReply | null>({ type: 'store' });
  }

  /** Starts sampling the allocations that outlive the young generation. */
  async startPromoted(): Promise<void> {
    await this.ask({ type: 'promoted-start' });
  }

  /** The sampled heap profile (HeapProfiler.stopSampling's) of what was promoted since startPromoted. */
  async stopPromoted(): Promise<unknown> {
    return this.ask({ type: 'promoted-stop' });
  }

  /** Starts the V8 CPU profiler in the process. */
  async startProfile(): Promise<void> {
    await this.ask({ type: 'profile-start' });
  }

  async stopProfile(path: string): Promise<void> {
    await this.ask({ type: 'profile-stop', path });
  }

  private ask<T>(request: Request): Promise<T> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (value: unknown) => void);
      this.child.send({ ...request, id } satisfies ToChild);
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.removeAllListeners('exit');
      this.child.once('exit', () => resolve());
      this.child.send({ type: 'stop' } satisfies ToChild);
    });
  }
}

/** The last non-empty line of a process's stderr, for a one-line reason. */
export function lastError(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  return lines.at(-1)?.trim().slice(0, 300) ?? '(no output)';
}

/** Clock ticks per second of /proc/PID/stat (USER_HZ; 100 on Linux everywhere in practice). */
const TICKS_PER_SECOND = 100;

/** A process and its descendants, through /proc/PID/task/TID/children. */
function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    try {
      for (const tid of readdirSync(`/proc/${tree[i]}/task`)) {
        const children = readFileSync(`/proc/${tree[i]}/task/${tid}/children`, 'utf8').trim();
        if (children) tree.push(...children.split(' ').map(Number));
      }
    } catch {
      // gone meanwhile
    }
  }
  return tree;
}

/** A peer gateway: a command of its own, measured from the outside through /proc. */
export class PeerProcess implements Measured {
  readonly child: ChildProcess;
  readonly url: string;

  constructor(child: ChildProcess, url: string) {
    this.child = child;
    this.url = url;
  }

  get pid(): number {
    return this.child.pid!;
  }

  async cpu(): Promise<number> {
    const ticks = processTree(this.pid).reduce((sum, pid) => sum + processTicks(pid), 0);
    return (ticks * 1e6) / TICKS_PER_SECOND;
  }

  async rss(): Promise<number> {
    return processTree(this.pid).reduce((sum, pid) => sum + statusKb(pid, 'VmRSS') * 1024, 0);
  }

  async memory(): Promise<undefined> {
    return undefined;
  }

  async observeStart(): Promise<void> {}

  async observeStop(): Promise<undefined> {
    return undefined;
  }

  /**
   * Waits until the peer is idle (under 5% of a core over 200 ms, at most 60 s): after a load ends, a slow peer
   * still works through the requests it had accepted, which must not land in the next measurement.
   */
  async settle(): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (let before = await this.cpu(); Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 200));
      const now = await this.cpu();
      if (now - before < 0.05 * 200_000) return;
      before = now;
    }
  }

  /** Ends the peer's process group (it was started detached, as its own group). */
  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
      const signal = (name: NodeJS.Signals) => {
        try {
          process.kill(-this.pid, name);
        } catch {
          // the group is gone already
        }
      };
      const force = setTimeout(() => signal('SIGKILL'), 5000);
      this.child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      signal('SIGTERM');
    });
  }
}

/** A field of /proc/PID/status in kB (VmRSS, RssAnon, VmHWM), 0 when unreadable. */
export function statusKb(pid: number, field: string): number {
  try {
    const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** The fields of /proc/PID/stat after the command name (state first), or undefined when unreadable. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** utime + stime of a process in clock ticks (Linux /proc/PID/stat). */
export function processTicks(pid: number): number {
  const fields = statFields(pid);
  return fields ? Number(fields[11]) + Number(fields[12]) : 0;
}

/** Minor page faults of a process so far (Linux /proc/PID/stat), 0 when unreadable. */
export function minorFaults(pid: number): number {
  return Number(statFields(pid)?.[7] ?? 0);
}

/** CPU ticks of the given processes and their descendants. */
export function treeTicks(pids: number[]): number {
  return pids.flatMap(processTree).reduce((sum, pid) => sum + processTicks(pid), 0);
}

/** Busy and total CPU ticks of the machine (Linux /proc/stat), or undefined elsewhere. */
export function systemTicks(): { busy: number; total: number } | undefined {
  try {
    // user nice system idle iowait irq softirq steal (guest time is already inside user and nice)
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1, 9).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    return { busy: total - fields[3] - (fields[4] ?? 0), total };
  } catch {
    return undefined;
  }
}

/**
 * Starts counting the CPU used by processes other than `ours` (and their children); the returned function gives it
 * so far, in cores. Another bench or a test suite on the same machine makes every figure noisy.
 */
export function otherLoadSince(ours: () => number[], cores: number): () => number {
  const s0 = systemTicks();
  const o0 = treeTicks(ours());
  return () => {
    const s1 = systemTicks();
    const o1 = treeTicks(ours());
    if (!s0 || !s1 || s1.total <= s0.total) return Number.NaN;
    return Math.max(0, (s1.busy - s0.busy - (o1 - o0)) / ((s1.total - s0.total) / cores));
  };
}

/** Other processes' CPU use over `ms`, in cores. */
export async function otherLoad(ours: number[], cores: number, ms = 1000): Promise<number> {
  const since = otherLoadSince(() => ours, cores);
  await new Promise((r) => setTimeout(r, ms));
  return since();
}

/** Pins every thread of a process to the given CPUs; false when taskset is missing or refused. */
export function pin(pid: number, cpuList: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-cp', cpuList, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Where the bench puts the load generator, the upstream and the server under test. */
export interface Placement {
  loadCpu: string;
  upstreamCpu: string;
  /** undefined: not pinned. */
  targetCpu?: string;
  description: string;
}

/**
 * The CPUs a target served by `workers` threads is pinned to: its own CPU, then the next ones, then (when the machine
 * has too few) the load generator's and the upstream's, which the row then shares (`shared` says so).
 */
export function targetCpus(place: Placement, cores: number, workers: number): { list: string; shared: boolean } {
  if (!place.targetCpu || workers <= 1) return { list: place.targetCpu ?? '', shared: false };
  const first = Number(place.targetCpu);
  const order = [
    ...Array.from({ length: cores - first }, (_, i) => first + i),
    ...Array.from({ length: first }, (_, i) => i),
  ];
  const chosen = order.slice(0, workers);
  return { list: chosen.join(','), shared: chosen.some((c) => c < first) };
}

/**
 * With 2 cores: the measured server gets a core of its own, the load generator and the upstream share the other.
 * With 3 or more: one core each. Servers under test all share the target core; only one is loaded at a time.
 */
export function placement(cores: number, wanted: boolean): Placement {
  if (!wanted) return { loadCpu: '', upstreamCpu: '', description: 'not pinned (--no-pin)' };
  if (cores < 2) return { loadCpu: '', upstreamCpu: '', description: 'not pinned (1 core)' };
  const targetCpu = String(cores >= 3 ? 2 : 1);
  const upstreamCpu = cores >= 3 ? '1' : '0';
  return {
    loadCpu: '0',
    upstreamCpu,
    targetCpu,
    description: `pinned: server under test on CPU ${targetCpu}, upstream on CPU ${upstreamCpu}, load generator on CPU 0`,
  };
}

/** How `npm start` starts the server: the environment variables it sets and the Node flags it passes. */
export interface StartSettings {
  /** `NAME=value …` (glibc's malloc settings), or ''. */
  env: string;
  /** `--flag …`. */
  flags: string;
}

/**
 * Reads package.json's start script, `[NAME=value …] exec node <flags> dist/src/runtime/cli.js …`: the gateways'
 * default here. Throws when the script has another shape, rather than measure without its settings.
 */
export function startSettings(): StartSettings {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  const match = /^((?:\w+=\S*\s+)*)exec node\s+(.*?)\s*dist\/src\/runtime\/cli\.js\b/.exec(pkg.scripts.start);
  if (!match) throw new Error(`package.json's start script has an unexpected shape: ${pkg.scripts.start}`);
  return { env: match[1].trim(), flags: match[2] };
}

/** `NAME=value NAME2=value2` as an environment object; a word without `=` or a name is refused. */
export function parseEnvAssignments(assignments: string): Record<string, string> {
  return Object.fromEntries(
    assignments
      .split(/\s+/)
      .filter(Boolean)
      .map((word) => {
        const at = word.indexOf('=');
        if (at < 1) throw new Error(`not an environment assignment (NAME=value): ${word}`);
        return [word.slice(0, at), word.slice(at + 1)];
      }),
  );
}
