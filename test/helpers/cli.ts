// Runs the `svc` CLI from source (Node type stripping) as a child process, so no build is needed.
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const CLI = join(ROOT, 'src/runtime/cli.ts');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment without variables gateway.yaml reads, so results do not depend on the machine. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, NODE_OPTIONS: '', ...extra };
}

export function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((done) => {
    const run = { cwd: options.cwd ?? ROOT, env: options.env ?? cleanEnv(), timeout: options.timeoutMs ?? 60_000 };
    execFile(process.execPath, [CLI, ...args], run, (err, stdout, stderr) => {
      const code = err
        ? typeof (err as { code?: unknown }).code === 'number'
          ? (err as { code: number }).code
          : -1
        : 0;
      done({ code, stdout, stderr });
    });
  });
}
