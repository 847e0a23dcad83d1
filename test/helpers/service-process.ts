// `svc start` as a child process (the real CLI from source): its output so far, a wait for a line of it, its exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI, ROOT, cleanEnv } from './cli.ts';

export interface ServiceProcess {
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
  /** Resolves with stdout once it matches; rejects if the process ends first. */
  waitFor(pattern: RegExp): Promise<string>;
  stop(): Promise<number | null>;
  /** Sends a signal (SIGKILL for a crash) and resolves when the process has exited. */
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

export function svcStart(configPath: string, env: NodeJS.ProcessEnv = cleanEnv(), args: string[] = []): ServiceProcess {
  const child: ChildProcess = spawn(process.execPath, [CLI, 'start', '--config', configPath, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return {
    exited,
    output: () => ({ stdout, stderr }),
    waitFor(pattern) {
      return new Promise((done, fail) => {
        const check = () => {
          if (pattern.test(stdout)) {
            child.stdout!.off('data', check);
            done(stdout);
          }
        };
        child.stdout!.on('data', check);
        check();
        void exited.then((code) =>
          fail(new Error(`svc start exited (${code}) before printing ${pattern}:\n${stdout}\n${stderr}`)),
        );
      });
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** The URLs in the listening lines of each role (src/runtime/cli.ts); role `gateway` has a status port where `admin` is. */
export const LISTENING: Record<'all' | 'gateway' | 'admin', RegExp> = {
  all: /svc gateway listening on \S+ \([^)]*\): (?<gateway>\S+)\/v1 \(role all\)\nsvc admin listening on \S+ \([^)]*\): (?<admin>\S+)/,
  gateway:
    /svc gateway listening on \S+ \([^)]*\): (?<gateway>\S+)\/v1 \(role gateway\)\nsvc status listening on \S+ \([^)]*\): (?<admin>\S+)/,
  admin: /svc admin listening on \S+ \([^)]*\): (?<admin>\S+) \(role admin/,
};

/**
 * Starts `svc start` (with `--role` when given) and waits for its listening line; returns the process and its
 * gateway URL ('' for role admin, which has none) and admin URL (role gateway: its status port).
 */
export async function startServiceProcess(
  t: { teardown(fn: () => unknown): void },
  configPath: string,
  options: { role?: 'all' | 'gateway' | 'admin'; env?: NodeJS.ProcessEnv } = {},
): Promise<{ process: ServiceProcess; gatewayUrl: string; adminUrl: string }> {
  const role = options.role ?? 'all';
  const p = svcStart(configPath, options.env, options.role ? ['--role', options.role] : []);
  t.teardown(() => p.stop());
  const out = await p.waitFor(LISTENING[role]);
  const m = LISTENING[role].exec(out)!.groups!;
  return { process: p, gatewayUrl: m.gateway ?? '', adminUrl: m.admin };
}
