// The gateway as the bench runs it: started in-process with startService, from a gateway.yaml written to a
// temporary directory, on the embedded store (PGlite) or the Postgres database bench/run.ts made for the run
// (SVC_BENCH_POSTGRES_URL). Plugins auth + router, plus tracing when asked; one model
// group with one `openai` deployment pointing at the fake upstream, one key.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startService } from '../src/service.ts';
import { silentLogger } from '../src/telemetry/logger.ts';

export const BENCH_KEY = 'sk-bench-0123456789abcdef0123456789';
export const BENCH_GROUP = 'bench';

export function benchConfig(upstreamBaseUrl: string, dataDir: string, tracing: boolean): Record<string, unknown> {
  return {
    version: 1,
    server: { host: '127.0.0.1', port: 0, admin_port: 0, watch_config: false },
    store: { data_dir: dataDir, postgres_url: process.env.SVC_BENCH_POSTGRES_URL ?? '' },
    projects: [{ id: 'default', name: 'Default' }],
    model_groups: [
      {
        name: BENCH_GROUP,
        created_at: '2026-01-01T00:00:00Z',
        deployments: [
          {
            id: 'fake-upstream',
            provider: 'openai',
            base_url: upstreamBaseUrl,
            api_key: 'sk-upstream-bench',
            model: 'fake-model',
            price: { input_per_mtok: 0.15, output_per_mtok: 0.6 },
          },
        ],
      },
    ],
    keys: [{ alias: 'bench', key: BENCH_KEY, project: 'default', model_groups: [BENCH_GROUP] }],
    plugins: [{ use: 'auth' }, { use: 'router' }, ...(tracing ? [{ use: 'tracing' }] : [])],
  };
}

export interface GatewayTarget {
  url: string;
  /** Resolves once every trace of the requests so far is written (queue empty, nothing spilled). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export async function startGatewayTarget(upstreamBaseUrl: string, options: { tracing: boolean }): Promise<GatewayTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const configPath = join(dir, 'gateway.yaml');
  writeFileSync(configPath, stringify(benchConfig(upstreamBaseUrl, join(dir, 'data'), options.tracing)));
  // Process metrics stay on, as under `svc start`.
  const service = await startService({ configPath, log: silentLogger, watch: false });
  return {
    url: service.gatewayUrl,
    async settle() {
      for (;;) {
        const s = service.traceWriter.snapshot();
        if (s.queue_depth === 0 && s.spill_files === 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      await service.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
