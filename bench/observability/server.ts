// Entry point of the service process the observability bench measures, started by bench/observability/service.ts
// with an IPC channel:   node bench/observability/server.ts <postgres URL>
// The whole service (startService, as `svc start` runs it) on the bench's database, with one project `bench` and the
// REST API's rate limit at its maximum (the bench's sequential requests would otherwise exhaust the burst). It reports
// {type:'ready', adminUrl, publicKey, secretKey} with the project key pair its first start creates, and stops on
// {type:'stop'} or when the parent goes away.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService } from '../../src/runtime/service.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { PROJECT_ID } from './data-set.ts';

export type ServerMessage =
  { type: 'ready'; adminUrl: string; publicKey: string; secretKey: string } | { type: 'stopped' };

const postgresUrl = process.argv[2];
if (!process.send || !postgresUrl)
  throw new Error('bench/observability/server.ts is started by bench/observability/service.ts (IPC, a postgres URL)');

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-observability-'));
const config = {
  version: 1,
  server: { host: '127.0.0.1', port: 0, admin_port: 0, watch_config: false },
  store: { data_dir: join(dir, 'data'), postgres_url: postgresUrl },
  projects: [{ id: PROJECT_ID, name: 'Bench' }],
  api: { rate_limit: { requests_per_minute: 1_000_000, burst: 100_000 } },
  model_groups: [],
  plugins: [{ use: 'auth' }, { use: 'router' }],
};
const service = await startService({ configText: JSON.stringify(config), baseDir: dir, log: silentLogger });
const key = service.createdApiKeys.find((k) => k.projectId === PROJECT_ID);
if (!key) throw new Error(`the service created no key pair for project ${PROJECT_ID}: is the database empty?`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
  if (process.connected) process.send!({ type: 'stopped' } satisfies ServerMessage);
  process.exit(0);
}
process.on('message', (m: { type?: string }) => m.type === 'stop' && void stop());
process.on('disconnect', () => void stop());
process.send({
  type: 'ready',
  adminUrl: service.adminUrl,
  publicKey: key.publicKey,
  secretKey: key.secretKey,
} satisfies ServerMessage);
