// The router's per-request work for each routing strategy (docs/performance.md "Routing strategies"):
//   node bench/routing-strategies.ts [--requests 200000] [--rounds 3] [--redis redis://127.0.0.1:6379]
// What plugins/router/index.ts does for one request of the bench's body in a group of three deployments, besides
// the provider call: the strategy's figures read, the choice, and its writes (a lease taken and released for
// least-busy and prefix-affinity, a latency sample for latency). In-process counters: µs of process CPU per request.
// With --redis also the wall time per request against Redis, each write awaited (the router does not await them).
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { choiceInputs, choose, countsInFlight, readFigures } from '../plugins/router/strategy.ts';
import type { ModelGroupConfig, RoutingStrategy } from '../src/platform/config/types.ts';
import { memoizedEstimate } from '../src/gateway/pipeline/admission-estimate.ts';
import { systemClock } from '../src/platform/clock.ts';
import type { JsonObject, RequestContext } from '../src/plugin-api/contract.ts';
import { routingBoard, type RoutingBoard } from '../plugins/router/routing-board.ts';
import type { Counters } from '../src/platform/store/counters/counters.ts';
import { MemoryCounters } from '../src/platform/store/counters/memory-counters.ts';
import { RedisCounters } from '../src/platform/store/counters/redis-counters.ts';
import { silentLogger } from '../src/platform/telemetry/logger.ts';
import { JSON_BODY } from './measure.ts';

const { values: opts } = parseArgs({
  options: {
    requests: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '3' },
    redis: { type: 'string' },
  },
});
const N = Number(opts.requests);
const ROUNDS = Number(opts.rounds);
const STRATEGIES: RoutingStrategy[] = ['weighted', 'least-busy', 'latency', 'cost', 'prefix-affinity'];
const BODY = JSON.parse(JSON_BODY) as JsonObject;
const PRICES = new Map([1, 2, 3].map((i) => [`d${i}`, { input_per_mtok: i, output_per_mtok: 2 * i }]));

const groupOf = (strategy: RoutingStrategy): ModelGroupConfig => ({
  name: `bench-${strategy}`,
  routing: { strategy, retries: 2, timeout_ms: 30_000, bench_ms: 5_000, max_backoff_ms: 2_000 },
  deployments: [1, 2, 3].map((i) => ({
    id: `d${i}`,
    provider: 'openai',
    weight: 1,
    price: PRICES.get(`d${i}`),
  })),
});

async function oneRequest(board: RoutingBoard, group: ModelGroupConfig, i: number): Promise<void> {
  const ctx = {
    id: `r${i}`,
    body: BODY,
    annotations: {},
    estimate: memoizedEstimate('chat', BODY),
  } as unknown as RequestContext;
  const read = readFigures(board, ctx, group);
  const figures = read instanceof Promise ? await read : read;
  const d = choose(ctx, group, group.deployments, figures, choiceInputs(ctx, PRICES));
  if (countsInFlight(group)) {
    await board.start(group, d.id, ctx.id);
    await board.end(group, d.id, ctx.id);
  }
  if (group.routing.strategy === 'latency') await board.recordLatency(group, d.id, 1 + (i % 7));
}

async function measure(counters: Counters, requests: number, wall: boolean): Promise<Map<RoutingStrategy, number>> {
  const board = routingBoard(counters);
  const out = new Map<RoutingStrategy, number>();
  for (const strategy of STRATEGIES) {
    const group = groupOf(strategy);
    for (let i = 0; i < Math.min(requests, 2_000); i++) await oneRequest(board, group, i);
    const best: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < requests; i++) await oneRequest(board, group, i);
      const used = process.cpuUsage(cpu);
      best.push(wall ? ((performance.now() - started) * 1000) / requests : (used.user + used.system) / requests);
    }
    out.set(strategy, Math.min(...best));
  }
  return out;
}

const print = (title: string, figures: Map<RoutingStrategy, number>) => {
  console.log(title);
  const base = figures.get('weighted')!;
  for (const [s, us] of figures) {
    const added = s === 'weighted' ? '' : `${us >= base ? '+' : ''}${(us - base).toFixed(2)} µs`;
    console.log(`  ${s.padEnd(16)} ${us.toFixed(2).padStart(8)} µs   ${added}`);
  }
};

print(
  `in-process counters, CPU per request (best of ${ROUNDS} rounds of ${N}):`,
  await measure(new MemoryCounters(systemClock), N, false),
);
if (opts.redis) {
  const prefix = `svc-bench-routing-${randomBytes(4).toString('hex')}:`;
  const counters = new RedisCounters({ url: opts.redis, prefix, log: silentLogger });
  await counters.connect();
  try {
    print(
      `Redis counters, wall time per request, writes awaited (best of ${ROUNDS} rounds of ${N / 20}):`,
      await measure(counters, N / 20, true),
    );
  } finally {
    await counters.close();
    const redis = new Redis(opts.redis);
    const keys = STRATEGIES.flatMap((st) => [
      `{g:bench-${st}}:latency`,
      ...groupOf(st).deployments.map((d) => `{g:bench-${st}}:busy:${d.id}`),
    ]);
    await redis.del(...keys.map((k) => prefix + k));
    redis.disconnect();
  }
}
