// The gateway as the bench runs it: started in-process with startService, from a gateway.yaml written to a
// temporary directory, on the embedded store (PGlite) or the Postgres database bench/run.ts made for the run
// (SVC_BENCH_POSTGRES_URL), served by SVC_BENCH_WORKERS threads (default 1). Plugins auth + router, plus tracing when asked, plus the policies when
// SVC_BENCH_POLICIES is set (`memory`, or a Redis URL for the counters); one model group with one deployment (or
// SVC_BENCH_DEPLOYMENTS of them, equal weights, chosen by SVC_BENCH_STRATEGY when set) pointing at the fake upstream (`openai`, or `anthropic` for the
// anthropic target: every request and answer is then translated), one key. storeStats() counts the stored traces
// and the disk the embedded store's data directory uses, for the soak's bytes per trace.
import { lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { startService } from '../src/runtime/service.ts';
import { silentLogger } from '../src/platform/telemetry/logger.ts';

export const BENCH_KEY = 'sk-bench-0123456789abcdef0123456789';
export const BENCH_GROUP = 'bench';

/**
 * Every policy doing its work on every request and refusing none: a guardrail policy scanning prompts for secrets
 * and card numbers, key and project rpm/tpm, key and project budgets. The response cache is left out: the bench
 * repeats one request, so it would answer from memory and measure no proxying.
 */
const POLICY_PLUGINS = [
  {
    use: 'guardrails',
    config: {
      policies: [
        {
          name: 'no-secrets',
          detectors: [{ type: 'secrets' }, { type: 'pii', entities: ['credit_card'] }],
          check: { response: false },
        },
      ],
    },
  },
  { use: 'rate-limit' },
  { use: 'budget' },
];

export function benchConfig(
  upstreamBaseUrl: string,
  dataDir: string,
  tracing: boolean,
  provider: 'anthropic' | undefined,
  policies = process.env.SVC_BENCH_POLICIES,
  deployments = Number(process.env.SVC_BENCH_DEPLOYMENTS ?? 1),
  strategy = process.env.SVC_BENCH_STRATEGY,
): Record<string, unknown> {
  const redis =
    policies && policies !== 'memory'
      ? { redis_url: policies, redis_prefix: `svc-bench-${randomBytes(4).toString('hex')}:` }
      : {};
  const limits = policies ? { rpm: 100_000_000, tpm: 2_000_000_000 } : {};
  const budgets = policies ? [{ usd: 1_000_000, period: 'monthly' }] : [];
  return {
    version: 1,
    server: {
      host: '127.0.0.1',
      port: 0,
      admin_port: 0,
      watch_config: false,
      workers: Number(process.env.SVC_BENCH_WORKERS ?? 1),
      large_request_bytes: Number(process.env.SVC_BENCH_LARGE_REQUEST_BYTES ?? 0),
    },
    store: { data_dir: dataDir, postgres_url: process.env.SVC_BENCH_POSTGRES_URL ?? '', ...redis },
    projects: [{ id: 'default', name: 'Default', ...limits, budgets }],
    model_groups: [
      {
        name: BENCH_GROUP,
        created_at: '2026-01-01T00:00:00Z',
        ...(strategy ? { routing: { strategy } } : {}),
        deployments: Array.from({ length: deployments }, (_, i) =>
          i === 0 ? 'fake-upstream' : `fake-upstream-${i + 1}`,
        ).map((id) =>
          provider === 'anthropic'
            ? {
                id,
                provider: 'anthropic',
                // The Anthropic adapter appends /v1/messages to its base URL.
                base_url: upstreamBaseUrl.replace(/\/v1$/, ''),
                api_key: 'sk-ant-bench',
                model: 'claude-bench',
                price: { input_per_mtok: 3, output_per_mtok: 15 },
              }
            : {
                id,
                provider: 'openai',
                base_url: upstreamBaseUrl,
                api_key: 'sk-upstream-bench',
                model: 'fake-model',
                price: { input_per_mtok: 0.15, output_per_mtok: 0.6 },
              },
        ),
      },
    ],
    keys: [
      {
        alias: 'bench',
        key: BENCH_KEY,
        project: 'default',
        model_groups: [BENCH_GROUP],
        ...limits,
        ...(policies ? { budget_usd: 1_000_000 } : {}),
      },
    ],
    plugins: [
      { use: 'auth' },
      ...(policies ? POLICY_PLUGINS : []),
      { use: 'router' },
      ...(tracing ? [{ use: 'tracing' }] : []),
    ],
  };
}

export interface GatewayTarget {
  url: string;
  /** Resolves once every trace of the requests so far is written (queue empty, nothing spilled). */
  settle(): Promise<void>;
  storeStats(): Promise<{ traces: number; dataDirBytes?: number }>;
  close(): Promise<void>;
}

/** Disk used by the files under `path`, counted in allocated blocks as `du` does, bytes. */
function diskUsage(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.blocks * 512;
  return readdirSync(path).reduce((sum, name) => sum + diskUsage(join(path, name)), stat.blocks * 512);
}

/** Deletes the run's Redis keys (budget counters would otherwise stay for a month). */
async function dropRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    for (let cursor = '0'; ;) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      if ((cursor = next) === '0') break;
    }
  } finally {
    redis.disconnect();
  }
}

export async function startGatewayTarget(
  upstreamBaseUrl: string,
  options: { tracing: boolean; provider?: 'anthropic' },
): Promise<GatewayTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const configPath = join(dir, 'gateway.yaml');
  const config = benchConfig(upstreamBaseUrl, join(dir, 'data'), options.tracing, options.provider);
  writeFileSync(configPath, stringify(config));
  const store = config.store as { redis_url?: string; redis_prefix?: string; postgres_url: string; data_dir: string };
  // Process metrics stay on, as under `svc start`.
  const service = await startService({ configPath, log: silentLogger, watch: false });
  return {
    url: service.gatewayUrl,
    async settle() {
      for (;;) {
        const writer = service.traceWriter!;
        const s = writer.snapshot();
        if (s.queue_depth === 0 && s.spill_files === 0 && writer.inFlight() === 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async storeStats() {
      const { rows } = await service.db.query<{ n: string }>('SELECT count(*) AS n FROM traces');
      return { traces: Number(rows[0].n), dataDirBytes: store.postgres_url ? undefined : diskUsage(store.data_dir) };
    },
    async close() {
      await service.stop();
      if (store.redis_url) await dropRedisKeys(store.redis_url, store.redis_prefix!);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
