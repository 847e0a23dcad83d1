// Redis for tests: the local server (CI starts it), a key prefix of its own per test, its keys deleted at teardown.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.SVC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A unique key prefix; every key under it is deleted when the test ends. */
export function redisTestPrefix(t: { teardown(fn: () => unknown): void }): string {
  const prefix = `svc-test-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}:`;
  t.teardown(async () => {
    const redis = new Redis(REDIS_URL, { lazyConnect: true });
    await redis.connect();
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  });
  return prefix;
}
