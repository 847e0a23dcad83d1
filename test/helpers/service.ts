// Starts the whole service on port 0 with a config built in the test, in a temporary data directory.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startService, type RunningService, type StartOptions } from '../../src/service.ts';
import { silentLogger } from '../../src/telemetry/logger.ts';
import { storeSection, type StoreBackend } from './store.ts';

export const TEST_KEY = 'sk-test-key-0123456789abcdef';

/** A minimal valid config: one mock group `demo` and one key `TEST_KEY` granted it. Override any part. */
export function baseConfig(overrides: Record<string, unknown> = {}): Record<string, any> {
  return {
    version: 1,
    server: { host: '127.0.0.1', port: 0, admin_port: 0 },
    projects: [{ id: 'default', name: 'Default' }],
    model_groups: [
      {
        name: 'demo',
        created_at: '2026-11-21T00:00:00Z',
        deployments: [
          {
            id: 'demo-mock',
            provider: 'mock',
            model: 'mock-small',
            price: { input_per_mtok: 0.15, output_per_mtok: 0.6 },
          },
        ],
      },
    ],
    keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['demo'] }],
    plugins: [{ use: 'auth' }, { use: 'router' }],
    ...overrides,
  };
}

/** An OpenAI-compatible deployment pointing at a fake upstream. */
export function openaiDeployment(id: string, url: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    provider: 'openai',
    base_url: `${url}/v1`,
    api_key: `upstream-key-${id}`,
    model: `model-${id}`,
    ...extra,
  };
}

export interface TestService {
  service: RunningService;
  gatewayUrl: string;
  adminUrl: string;
  dir: string;
  configPath: string;
  /** Rewrites the config file (for reload tests). */
  writeConfig(config: Record<string, unknown>): void;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface TestServiceOptions extends Partial<StartOptions> {
  /** Store backend (default postgres: a fresh database, quick to create; PGlite costs seconds per start). */
  backend?: StoreBackend;
}

/**
 * Writes the config to a temp dir (data_dir inside it) and starts the service on port 0 with a fresh store.
 * Stopped and removed when the test ends.
 */
export async function startTestService(
  t: Teardown,
  config: Record<string, any>,
  options: TestServiceOptions = {},
): Promise<TestService> {
  const { backend = 'postgres', ...startOptions } = options;
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const configPath = join(dir, 'gateway.yaml');
  const store = {
    data_dir: join(dir, 'data'),
    ...(config.store?.postgres_url === undefined ? await storeSection(t, backend) : {}),
  };
  const withStore = (c: Record<string, any>) => ({ ...c, store: { ...store, ...c.store } });
  const writeConfig = (c: Record<string, unknown>) => writeFileSync(configPath, stringify(withStore(c)));
  writeConfig(config);
  const service = await startService({
    configPath,
    log: silentLogger,
    watch: false,
    processMetrics: false,
    ...startOptions,
  });
  t.teardown(async () => {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return { service, gatewayUrl: service.gatewayUrl, adminUrl: service.adminUrl, dir, configPath, writeConfig };
}

/** POST JSON to the gateway with the test key. */
export async function postJson(
  baseUrl: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export const chatBody = (extra: Record<string, unknown> = {}) => ({
  model: 'demo',
  messages: [{ role: 'user', content: 'Hello' }],
  ...extra,
});
