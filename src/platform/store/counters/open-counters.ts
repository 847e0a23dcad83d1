import type { Clock } from '../../clock.ts';
import type { Logger } from '../../telemetry/logger.ts';
import type { Counters } from './counters.ts';
import { MemoryCounters } from './memory-counters.ts';
import { SharedMemoryCounters } from './shared-memory-counters.ts';

/**
 * Redis when `store.redis_url` is set, else in-process: over `shared` when several threads of the process use them
 * (SharedMemoryCounters.createBuffer), else in this thread's heap. The Redis client is loaded only when used (about 2 MB
 * of heap in every thread that would otherwise import it).
 */
export async function openCounters(
  store: { redis_url: string; redis_prefix: string },
  clock: Clock,
  log: Logger,
  shared?: SharedArrayBuffer,
): Promise<Counters> {
  if (!store.redis_url) return shared ? new SharedMemoryCounters(shared, clock) : new MemoryCounters(clock);
  const { RedisCounters } = await import('./redis-counters.ts');
  const counters = new RedisCounters({ url: store.redis_url, prefix: store.redis_prefix, log });
  await counters.connect();
  return counters;
}
