// The worker-thread pool (src/platform/workers/pool.ts) with the guardrails scan task: tasks run on plain data in a thread,
// and a full queue refuses with 503 worker_pool_overloaded instead of running inline.
import t from 'tap';
import { GatewayError } from '../../src/platform/errors/gateway-error.ts';
import { createWorkerPool } from '../../src/platform/workers/pool.ts';
import { WORKER_TASK_FILES } from '../../src/runtime/worker-tasks.ts';

const specs = [{ type: 'pii' as const, entities: ['email' as const] }];

t.test('scanText through the pool: one list of findings per policy', async (t) => {
  const pool = createWorkerPool(WORKER_TASK_FILES, { maxThreads: 1 });
  t.teardown(() => pool.close());
  t.same(await pool.run('scanText', { policies: [specs, []], text: 'a@example.com b@example.com' }), [
    [
      {
        detector: 'pii.email',
        count: 2,
        matches: [
          [0, 13],
          [14, 27],
        ],
      },
    ],
    [],
  ]);
});

t.test('a full queue is overload: 503 worker_pool_overloaded, the queued tasks still run', async (t) => {
  const pool = createWorkerPool(WORKER_TASK_FILES, { maxThreads: 1, maxQueue: 2 });
  t.teardown(() => pool.close());
  const text = 'x@example.com '.repeat(50_000);
  const runs = Array.from({ length: 6 }, () => pool.run('scanText', { policies: [specs], text }));
  const results = await Promise.allSettled(runs);
  const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
  const served = results.filter((r) => r.status === 'fulfilled');
  t.ok(refused.length >= 3, `refused once the queue held 2 (${refused.length} of 6)`);
  t.ok(served.length >= 2, `the queued ones ran (${served.length})`);
  for (const err of refused) t.match(err, { constructor: GatewayError, code: 'worker_pool_overloaded', status: 503 });
  const [[finding]] = (
    served[0] as PromiseFulfilledResult<{ detector: string; count: number; matches: number[][] }[][]>
  ).value;
  t.match(finding, { detector: 'pii.email', count: 50_000 });
  t.equal(finding.matches.length, 50_000);
  t.same(finding.matches.at(-1), [text.length - 14, text.length - 1]);
});
