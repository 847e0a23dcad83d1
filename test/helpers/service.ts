// Starts the whole service on port 0 with a config built in the test, in a temporary data directory.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startService, type RunningService, type StartOptions } from '../../src/runtime/service.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { seedMigratedPglite } from './pglite-template.ts';
import { storeSection, type StoreBackend } from './store.ts';
import { TEST_KEY } from './test-config.ts';

export { TEST_KEY, baseConfig, chatBody, demoGroup, openaiDeployment } from './test-config.ts';

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
  const { postgres_url: postgresUrl, data_dir: dataDir } = withStore(config).store;
  if (!postgresUrl) await seedMigratedPglite(dataDir);
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
