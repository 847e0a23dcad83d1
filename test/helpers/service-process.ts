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

export function svcStart(configPath: string, env: NodeJS.ProcessEnv = cleanEnv()): ServiceProcess {
  const child: ChildProcess = spawn(process.execPath, [CLI, 'start', '--config', configPath], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
        void exited.then((code) => fail(new Error(`svc start exited (${code}) before printing ${pattern}:\n${stdout}\n${stderr}`)));
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

/** Starts `svc start` and waits for its listening line; returns the process and its gateway and admin URLs. */
export async function startServiceProcess(t: { teardown(fn: () => unknown): void }, configPath: string): Promise<{ process: ServiceProcess; gatewayUrl: string; adminUrl: string }> {
  const p = svcStart(configPath);
  t.teardown(() => p.stop());
  const out = await p.waitFor(/listening on/);
  const m = /listening on (\S+)\/v1, admin on (\S+)/.exec(out)!;
  return { process: p, gatewayUrl: m[1], adminUrl: m[2] };
}
