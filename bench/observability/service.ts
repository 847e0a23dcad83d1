// The service under test in a process of its own (bench/observability/server.ts), so that its CPU is its own and not
// the load generator's: its admin URL, its project key pair as both API surfaces take it, and its CPU from /proc.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { lastError, processTicks } from '../processes.ts';
import type { ServerMessage } from './server.ts';

const READY_TIMEOUT_MS = 120_000;
/** USER_HZ, the unit of /proc/PID/stat. */
const TICKS_PER_SECOND = 100;

export interface BenchService {
  pid: number;
  adminUrl: string;
  /** Authorization header values: the public API's Basic pair, the REST API's Bearer secret. */
  basicAuth: string;
  bearerAuth: string;
  /** CPU seconds (user + system, every thread) the process has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

export function startBenchService(
  postgresUrl: string,
  nodeFlags: readonly string[] = [],
  nodeEnv: Record<string, string> = {},
): Promise<BenchService> {
  const entry = fileURLToPath(new URL('./server.ts', import.meta.url));
  const child = spawn(process.execPath, [...nodeFlags, entry, postgresUrl], {
    env: { ...process.env, ...nodeEnv },
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.removeAllListeners('exit');
      child.once('exit', () => resolve());
      child.send({ type: 'stop' });
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`the service did not report ready within ${READY_TIMEOUT_MS / 1000} s`));
    }, READY_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with code ${code} before it was ready: ${lastError(stderr)}`));
    });
    child.on('message', (m: ServerMessage) => {
      if (m.type !== 'ready') return;
      clearTimeout(timer);
      resolve({
        pid: child.pid!,
        adminUrl: m.adminUrl,
        basicAuth: `Basic ${Buffer.from(`${m.publicKey}:${m.secretKey}`).toString('base64')}`,
        bearerAuth: `Bearer ${m.secretKey}`,
        cpuSeconds: () => processTicks(child.pid!) / TICKS_PER_SECOND,
        stop,
      });
    });
  });
}
