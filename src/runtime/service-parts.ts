// What a service is built from, out of its first configuration: the store with its control socket, the key store, the
// trace and spend writers, the OTLP export, the counters, the webhook and retention loops, providers and metrics. They
// live as long as the process; the pipeline built over them follows reloads (config-lifecycle.ts).
import { resolve } from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import type { LoadedConfig } from '../platform/config/load-config.ts';
import type { GatewayConfig } from '../platform/config/types.ts';
import { runCommand } from './control/commands.ts';
import { serviceControlSocket, type ControlSocket } from './control/control-socket.ts';
import type { GeneratedKey } from '../gateway/keys/key-store.ts';
import { StoredKeyStore } from '../gateway/keys/stored-key-store.ts';
import { DurableSpendLedger } from '../gateway/budget/spend-ledger.ts';
import type { Clock } from '../platform/clock.ts';
import { createProviderRegistry } from '../gateway/providers/registry.ts';
import { benchBoard, benchState } from '../gateway/routing/bench-board.ts';
import { bootstrapStore } from './bootstrap.ts';
import type { Counters } from '../platform/store/counters/counters.ts';
import { openCounters } from '../platform/store/counters/open-counters.ts';
import { SharedMemoryCounters } from '../platform/store/counters/shared-memory-counters.ts';
import { openDatabase, type Database } from '../platform/store/database.ts';
import { gatedDatabase } from '../platform/store/gated-database.ts';
import { LocalStateFile } from '../platform/store/local-state.ts';
import { memoryProcessValues, type ProcessValues } from '../platform/store/memory-values.ts';
import { migrate } from '../platform/store/migrate.ts';
import type { CreatedApiKey } from '../platform/store/repos/api-keys.ts';
import { RetentionSweep } from '../platform/store/retention-sweep.ts';
import type { Logger } from '../platform/telemetry/logger.ts';
import { GatewayMetrics } from '../platform/telemetry/metrics.ts';
import type { OtlpExport } from '../gateway/tracing/otlp/otlp-export.ts';
import { TraceThread } from '../gateway/tracing/trace-thread.ts';
import type { TraceThreadStore as StoreLink } from '../gateway/tracing/trace-thread-worker.ts';
import type { TraceSink } from '../gateway/tracing/trace-writer.ts';
import type { PgliteDatabase } from '../platform/store/pglite-database.ts';
import { ensureFirstOwner, type FirstOwner } from '../observability/users/first-owner.ts';
import { WebhookDelivery } from '../observability/webhooks/delivery-loop.ts';
import { OutboxRecorder } from '../observability/webhooks/outbox-recorder.ts';
import { createWorkerPool, type WorkerPool } from '../platform/workers/pool.ts';
import { WORKER_TASK_FILES } from './worker-tasks.ts';
import type { RoleWork } from './service-role.ts';
import { StorePreparation } from './store-preparation.ts';
import type { StartOptions } from './start-options.ts';
import type { ProviderRegistry, BenchBoard, SpendLedger } from '../plugin-api/services.ts';

export interface ServiceParts {
  log: Logger;
  clock: Clock;
  localState: LocalStateFile;
  dispatcher: Dispatcher;
  workers: WorkerPool;
  providers: ProviderRegistry;
  metrics: GatewayMetrics;
  /** A link to the store for another thread: a port of the embedded store's thread, or the PostgreSQL URL. */
  storeLink(): Promise<StoreLink>;
  /** The store; every call fails with StoreUnavailableError until `store` has prepared it. */
  db: Database;
  /** The store's preparation; `ready` gives the dashboard owner it created (no user in the store yet). */
  store: StorePreparation<FirstOwner | undefined>;
  storedKeys: StoredKeyStore;
  /**
   * Reads the store's key changes now, here and in every gateway thread (after a key is minted, changed or revoked
   * through the admin listener or the control socket).
   */
  refreshKeys(): Promise<void>;
  /** Adds what `refreshKeys` also waits for (the gateway threads' own refresh). */
  followKeyChanges(refresh: () => Promise<void>): void;
  /** The trace writer's thread; none where the role serves no gateway (nothing is traced there). */
  traceWriter: TraceThread | undefined;
  /** Where the gateway's traces go: the trace writer, and the OTLP export when tracing.otlp is set. */
  traceSink: TraceSink;
  /** The export to an OpenTelemetry collector (tracing.otlp, read at start). */
  otlpExport?: OtlpExport;
  spend: DurableSpendLedger;
  counters: Counters;
  /** Byte values held in this process by name (the cache's memory backend), shared with the gateway threads. */
  processValues: ProcessValues;
  /** The in-process counters' memory when gateway threads share them (none on Redis or with one thread). */
  sharedCounters?: SharedArrayBuffer;
  bench: BenchBoard;
  webhooks: WebhookDelivery;
  retention: RetentionSweep;
  promptVersionEvents: OutboxRecorder;
  /** Project key pairs created on this start and by reloads that added a project. */
  createdApiKeys: CreatedApiKey[];
  /** Gateway keys generated on this start and by reloads. */
  generatedKeys: GeneratedKey[];
  /** Stops the loops and writers (writing what they hold for up to `flushMs`) and closes the store. */
  release(flushMs?: number): Promise<void>;
}

/**
 * What serving gateway requests needs of the parts: the configuration's lifecycle builds each pipeline over them, the
 * gateway listener's host reads health from them. A gateway thread (gateway-threads.ts) has its own of each.
 */
export type ServingParts = { spend: SpendLedger } & Pick<
  ServiceParts,
  | 'log'
  | 'clock'
  | 'localState'
  | 'dispatcher'
  | 'workers'
  | 'providers'
  | 'metrics'
  | 'db'
  | 'storedKeys'
  | 'traceSink'
  | 'counters'
  | 'processValues'
  | 'bench'
  | 'createdApiKeys'
  | 'generatedKeys'
>;

type PartsOptions = Pick<StartOptions, 'dispatcher' | 'processMetrics' | 'onCreatedApiKey'> & {
  /**
   * Threads that serve the gateway (the main thread or those on the port, and the large-request thread:
   * gateway-threads.ts); more than one share the in-process counters.
   */
  gatewayThreads: number;
};

/** Opens the parts; the writers start where the role serves the gateway. `config` reads the active configuration. */
export async function openServiceParts(
  first: LoadedConfig,
  options: PartsOptions & { log: Logger; clock: Clock },
  work: RoleWork,
  config: () => GatewayConfig,
): Promise<ServiceParts> {
  const { log, clock } = options;
  const dataDir = resolve(first.baseDir, first.config.store.data_dir);
  const localState = new LocalStateFile(dataDir);
  const { dispatcher, workers, providers } = openProviders(first.baseDir, clock, log, options.dispatcher);
  const metrics = new GatewayMetrics({ processMetrics: options.processMetrics });
  const { control, raw, ...storeParts } = await openStoreParts(first, dataDir, options, work);
  const { db } = storeParts;
  const { postgres_url: url } = first.config.store;
  const storeLink = async (): Promise<StoreLink> =>
    url ? { kind: 'postgres', url } : { kind: 'pglite', port: await (raw as PgliteDatabase).connect() };
  const traces = await openTraceParts(first, storeLink, dataDir, log, metrics, work);
  const { traceWriter, otlpExport } = traces;
  if (traceWriter) void storeParts.store.ready.then(() => traceWriter.prepared());
  const spend = new DurableSpendLedger(db, { spillDir: resolve(dataDir, 'spend-spill'), log });
  if (work.gateway) {
    otlpExport?.start();
    spend.start();
  }
  const sharedCounters =
    options.gatewayThreads > 1 && !first.config.store.redis_url ? SharedMemoryCounters.createBuffer() : undefined;
  const counters = await openCounters(first.config.store, clock, log, sharedCounters);
  const bench = benchBoard(counters);
  metrics.benchState = () => benchState(bench, config().model_groups);

  // Webhook automations (docs/webhooks.md): events go to the outbox in the changing transaction; this loop delivers
  // them, on every replica (claims keep replicas off each other's rows). Settings follow reloads.
  const webhooks = new WebhookDelivery({ db, workers, log, settings: () => config().webhooks, now: () => clock.now() });
  metrics.webhooks = () => webhooks.stats;
  const retention = new RetentionSweep(db, log, () => clock.now());
  const promptVersionEvents = new OutboxRecorder({ now: () => clock.now(), recorded: () => webhooks.wake() });

  const parts: Omit<ServiceParts, 'release'> = {
    ...storeParts,
    storeLink,
    log,
    clock,
    localState,
    dispatcher,
    workers,
    providers,
    metrics,
    ...traces,
    spend,
    counters,
    sharedCounters,
    processValues: memoryProcessValues(clock),
    bench,
    webhooks,
    retention,
    promptVersionEvents,
    generatedKeys: [],
  };
  return { ...parts, release: (flushMs = 0) => releaseParts(parts, control, flushMs) };
}

/** What calls the providers: the HTTP client, the worker pool for translation and signing, the adapters. */
export function openProviders(
  baseDir: string,
  clock: Clock,
  log: Logger,
  given?: Dispatcher,
): Pick<ServiceParts, 'dispatcher' | 'workers' | 'providers'> {
  const dispatcher = given ?? new Agent({ keepAliveTimeout: 30_000, connections: 256 });
  const workers = createWorkerPool(WORKER_TASK_FILES);
  const providers = createProviderRegistry({ dispatcher, now: () => clock.now(), clock, workers, baseDir, log });
  return { dispatcher, workers, providers };
}

/**
 * The trace writer's thread where the role serves the gateway, and the OTLP export when `tracing.otlp` is set; their
 * numbers go to /metrics. The thread reaches the store over a port of the embedded store's thread, or over a
 * PostgreSQL pool of its own.
 */
async function openTraceParts(
  first: LoadedConfig,
  storeLink: () => Promise<StoreLink>,
  dataDir: string,
  log: Logger,
  metrics: GatewayMetrics,
  work: RoleWork,
): Promise<Pick<ServiceParts, 'traceWriter' | 'traceSink' | 'otlpExport'>> {
  // Without a gateway listener no request is traced.
  if (!work.gateway) return { traceWriter: undefined, traceSink: { enqueue() {} } };
  const traceWriter = new TraceThread(
    {
      store: await storeLink(),
      spillDir: resolve(dataDir, 'trace-spill'),
      capacity: first.config.store.trace_queue_capacity,
      batchSize: first.config.store.trace_batch_size,
    },
    log,
  );
  await traceWriter.started;
  metrics.telemetry = () => traceWriter.snapshot();
  const otlp = first.config.tracing.otlp;
  if (!otlp) return { traceWriter, traceSink: traceWriter };
  // Loaded only when configured: the OTel exporter modules take a few hundred ms to load.
  const { OtlpExport } = await import('../gateway/tracing/otlp/otlp-export.ts');
  const otlpExport = new OtlpExport(otlp, log);
  metrics.otlpExport = () => otlpExport.snapshot();
  return { traceWriter, otlpExport, traceSink: bothSinks(traceWriter, otlpExport) };
}

/** Hands each trace to the store's writer and to the export. */
function bothSinks(store: TraceSink, exported: TraceSink): TraceSink {
  return {
    enqueue(item) {
      store.enqueue(item);
      exported.enqueue(item);
    },
  };
}

type StoreParts = Pick<
  ServiceParts,
  'db' | 'store' | 'createdApiKeys' | 'storedKeys' | 'refreshKeys' | 'followKeyChanges'
> & {
  control: ControlSocket | undefined;
  /** The store without the gate: for handing a connection of it to another thread. */
  raw: Database;
};

/**
 * The store, prepared to serve (migrated and bootstrapped, its keys polled) now or, when it cannot be reached at
 * start, once it answers; its control socket answering.
 */
async function openStoreParts(
  first: LoadedConfig,
  dataDir: string,
  options: Pick<StartOptions, 'onCreatedApiKey'> & { log: Logger; clock: Clock },
  work: RoleWork,
): Promise<StoreParts> {
  const { log, clock } = options;
  // The embedded store has one owner; its control socket both proves that and lets `svc keys create` etc. reach it.
  const control = first.config.store.postgres_url ? undefined : await serviceControlSocket(dataDir, log);
  const raw = await openDatabase({ postgresUrl: first.config.store.postgres_url, dataDir }).catch(
    async (err: unknown) => {
      await control?.close();
      throw err;
    },
  );
  const createdApiKeys: CreatedApiKey[] = [];
  // The key store reads the store itself: its first read is the preparation's last step, and /health counts from it.
  const storedKeys = new StoredKeyStore(raw, { log });
  // From the first configuration: until the store is prepared, a reload fails (its bootstrap needs the store).
  const store = new StorePreparation(async () => {
    await migrate(raw);
    for (const k of await bootstrapStore(raw, first.config, clock.now())) {
      createdApiKeys.push(k);
      options.onCreatedApiKey?.(k);
    }
    const firstOwner = work.admin ? await ensureFirstOwner(raw, first.config.organization.id) : undefined;
    await storedKeys.start(first.config.store.key_poll_ms);
    return firstOwner;
  }, log);
  await store.start().catch(async (err: unknown) => {
    await raw.close().catch(() => {});
    await control?.close();
    throw err;
  });
  const db = gatedDatabase(raw, () => store.prepared);
  const followers: (() => Promise<void>)[] = [];
  const refreshKeys = async () => {
    await storedKeys.refresh();
    await Promise.all(followers.map((refresh) => refresh()));
  };
  const followKeyChanges = (refresh: () => Promise<void>) => void followers.push(refresh);
  control?.serve((request) => runCommand({ db, now: () => clock.now(), changed: refreshKeys }, request));
  return { control, raw, db, store, createdApiKeys, storedKeys, refreshKeys, followKeyChanges };
}

async function releaseParts(
  parts: Omit<ServiceParts, 'release'>,
  control: ControlSocket | undefined,
  flushMs: number,
): Promise<void> {
  await parts.store.stop();
  parts.storedKeys.stop();
  await Promise.all([parts.webhooks.stop(), parts.retention.stop()]);
  await parts.counters.close();
  await Promise.all([
    parts.traceWriter?.stop(flushMs),
    parts.otlpExport?.stop(flushMs),
    parts.spend.stop(flushMs),
    parts.workers.close(),
  ]);
  const closeDb = () => parts.db.close().catch(() => {});
  await (control ? control.close(closeDb) : closeDb());
}
