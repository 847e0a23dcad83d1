// The gateways a limits test runs against: one in-process service with in-process counters ('memory'), or two
// gateway processes sharing the local Redis and one PostgreSQL database ('redis'): the test's own process and a
// `svc start` child process, so one limit must hold across processes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { RunningService } from '../../src/runtime/service.ts';
import { redisTestPrefix, REDIS_URL } from './redis.ts';
import { startServiceProcess } from './service-process.ts';
import { startTestService } from './service.ts';
import { sleep } from './wait-for.ts';

export type CountersMode = 'memory' | 'redis';
export const COUNTERS_MODES: readonly CountersMode[] = ['memory', 'redis'];

export interface Gateways {
  /** Gateway base URLs: one, or two processes sharing Redis. */
  urls: string[];
  /** The in-process service (its store, clock, counters). */
  service: RunningService;
  adminUrl: string;
}

export async function startGateways(
  t: { teardown(fn: () => unknown): void },
  mode: CountersMode,
  config: Record<string, any>,
): Promise<Gateways> {
  const store =
    mode === 'redis' ? { ...config.store, redis_url: REDIS_URL, redis_prefix: redisTestPrefix(t) } : config.store;
  const first = await startTestService(t, { ...config, ...(store ? { store } : {}) });
  if (mode === 'memory') return { urls: [first.gatewayUrl], service: first.service, adminUrl: first.adminUrl };
  // The second process: the same file but a data_dir of its own (spill files, generated keys).
  const second = parse(readFileSync(first.configPath, 'utf8'));
  second.store.data_dir = join(first.dir, 'data-2');
  const secondPath = join(first.dir, 'gateway-2.yaml');
  writeFileSync(secondPath, stringify(second));
  const other = await startServiceProcess(t, secondPath);
  return { urls: [first.gatewayUrl, other.gatewayUrl], service: first.service, adminUrl: first.adminUrl };
}

/** Waits, when needed, until the current calendar minute has at least `seconds` left, so a test stays in one window. */
export async function roomInMinute(seconds: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await sleep(left + 50);
}
