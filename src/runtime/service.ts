// Assembles the whole service from its configuration: the parts its role needs (runtime/service-parts.ts), the
// configuration's lifecycle of build, reload and retire (runtime/config-lifecycle.ts), the listeners
// (runtime/listeners.ts), and the graceful drain on stop (runtime/drain.ts).
import type { FSWatcher } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { AddressInfo } from 'node:net';
import type { LoadedConfig } from '../platform/config/load-config.ts';
import type { GeneratedKey } from '../gateway/keys/key-store.ts';
import type { StoredKeyStore } from '../gateway/keys/stored-key-store.ts';
import { systemClock } from '../platform/clock.ts';
import { ConfigLifecycle, readConfig, watchConfig, type ReloadResult } from './config-lifecycle.ts';
import { RequestDrain } from './drain.ts';
import { GatewayThreads } from './gateway-threads.ts';
import type { Env } from '../platform/config/interpolate.ts';
import { gatewayHost, openListeners, type Listeners } from './listeners.ts';
import { openServiceParts, type ServiceParts } from './service-parts.ts';
import { roleWork, type ServiceRole } from './service-role.ts';
import type { StartOptions } from './start-options.ts';
import type { Database } from '../platform/store/database.ts';
import type { Counters } from '../platform/store/counters/counters.ts';
import type { CreatedApiKey } from '../platform/store/repos/api-keys.ts';
import type { RetentionSweep } from '../platform/store/retention-sweep.ts';
import { jsonLogger, logLevelOf, type Logger } from '../platform/telemetry/logger.ts';
import type { GatewayMetrics } from '../platform/telemetry/metrics.ts';
import type { TraceThread } from '../gateway/tracing/trace-thread.ts';
import type { FirstOwner } from '../observability/users/first-owner.ts';
import type { WebhookDelivery } from '../observability/webhooks/delivery-loop.ts';
import type { PromptVersionEvents } from '../platform/store/repos/prompt-version-events.ts';

export { SERVICE_ROLES, type ServiceRole } from './service-role.ts';
export type { StartOptions } from './start-options.ts';

/** The gateway listener's URL and address (as the operating system reports it); none in role `admin`. */
type GatewayListener<R extends ServiceRole> = R extends 'admin'
  ? { gatewayUrl?: undefined; gatewayBound?: undefined }
  : { gatewayUrl: string; gatewayBound: AddressInfo };

/** A started service; `R` is its role when the caller knows it (default `all`: both listeners). */
export type RunningService<R extends ServiceRole = 'all'> = RunningServiceParts & GatewayListener<R>;

interface RunningServiceParts {
  role: ServiceRole;
  /** The admin listener's URL (role `gateway`: its status endpoints only). */
  adminUrl: string;
  adminBound: AddressInfo;
  /** Keys generated on this start; their plaintext is never available again. */
  generatedKeys: GeneratedKey[];
  /** Project key pairs created on this start (first start on an empty store). */
  createdApiKeys: CreatedApiKey[];
  /**
   * The dashboard owner created on this start (no user in the store yet); one created later, by a store down at
   * start, reaches `onFirstOwner` only.
   */
  firstOwner?: FirstOwner;
  warnings: string[];
  metrics: GatewayMetrics;
  db: Database;
  traceWriter: TraceThread | undefined;
  keyStore: StoredKeyStore;
  counters: Counters;
  /** Where prompt-version changes are recorded (the webhook outbox), inside the changing transaction. */
  promptVersionEvents: PromptVersionEvents;
  /** The webhook outbox's delivery loop. */
  webhooks: WebhookDelivery;
  /** Deletes traces past their project's retention. */
  retention: RetentionSweep;
  current(): LoadedConfig;
  /** Loads the configuration again; a bad one keeps the old and is reported on /metrics. */
  reload(): Promise<ReloadResult>;
  /** Stops taking requests, finishes in-flight ones up to the drain deadline, closes everything. */
  stop(): Promise<void>;
}

export async function startService<R extends ServiceRole = 'all'>(
  options: StartOptions<R>,
): Promise<RunningService<R>> {
  const role = options.role ?? 'all';
  const work = roleWork(role);
  const env = options.env ?? process.env;
  const log = options.log ?? jsonLogger({ svc: 'gateway' }, undefined, logLevelOf(env.SVC_LOG_LEVEL));
  const clock = options.clock ?? systemClock;
  // Every schema, reference and plugin problem at once; plugin modules and their config are checked before the store
  // opens, so a bad file fails fast.
  const read = () => readConfig({ path: options.configPath, text: options.configText, baseDir: options.baseDir }, env);

  const { loaded: first, plugins: firstPlugins } = await read();
  const lifecycle = new ConfigLifecycle(first, { ...options, read });
  const gatewayThreads = work.gateway ? threadCount(options.workers ?? first.config.server.workers) : 0;
  const largeRequests = work.gateway && first.config.server.large_request_bytes > 0;
  const parts = await openServiceParts(
    first,
    { ...options, log, clock, gatewayThreads: gatewayThreads + (largeRequests ? 1 : 0) },
    work,
    () => lifecycle.active.loaded.config,
  );
  try {
    await lifecycle.start(parts, firstPlugins);
  } catch (err) {
    await parts.release();
    throw err;
  }
  lifecycle.announceFirst();

  const drain = new RequestDrain();
  parts.metrics.inFlightNow = () => drain.inFlight;
  let threads: GatewayThreads | undefined;
  const listeners = await (async () => {
    if (gatewayThreads > 1 || largeRequests)
      threads = await startGatewayThreads(
        { count: gatewayThreads > 1 ? gatewayThreads : 0, largeRequests },
        first,
        parts,
        options,
        env,
        log,
      );
    const host = gatewayHost(parts, lifecycle, drain, { largeRequests: threads?.largeRequests });
    return openListeners(parts, lifecycle, host, work, options, first.config.server, threads);
  })().catch(async (err: unknown) => {
    await threads?.drain(0);
    await lifecycle.active.pipeline.close();
    await parts.release();
    throw err;
  });
  if (threads) {
    const started = threads;
    parts.followKeyChanges(() => started.refreshKeys());
    // A thread that stopped is reported by /ready; the others still get the store's keys.
    void parts.store.ready.then(() => started.prepared()).catch(() => {});
  }
  // The main thread reloads first (it bootstraps the store and generates keys), then every gateway thread follows.
  const reload = async (): Promise<ReloadResult> => {
    const result = await lifecycle.reload();
    if (result.ok && threads) await threads.reload();
    return result;
  };
  let watcher: FSWatcher | undefined;
  if (first.path && (options.watch ?? first.config.server.watch_config))
    watcher = watchConfig(first.path, () => void reload());

  // The loops that need the store start once it is prepared: at once, or when a store down at start answers.
  const storeReady = parts.store.ready.then((firstOwner) => {
    if (work.admin) {
      parts.webhooks.start();
      parts.retention.start();
    }
    if (firstOwner) {
      const dashboardUrl = `${listeners.adminUrl}/dashboard/`;
      // The password goes to stdout only (the CLI prints it): structured logs are often shipped where secrets must not go.
      log.info('dashboard owner created; its sign-in is printed on stdout once', {
        dashboardUrl,
        email: firstOwner.email,
      });
      options.onFirstOwner?.(firstOwner, dashboardUrl);
    }
    return firstOwner;
  });
  const firstOwner = parts.store.prepared ? await storeReady : undefined;

  const stop = async () => {
    if (!drain.begin()) return;
    watcher?.close();
    const deadlineMs = lifecycle.active.loaded.config.server.drain_timeout_ms;
    const mainDrained = drain.closeGateway(listeners.gateway, deadlineMs);
    await Promise.all([mainDrained, threads?.drain(deadlineMs, mainDrained)]);
    await listeners.admin.close();
    await lifecycle.active.pipeline.close();
    if (!options.dispatcher) await parts.dispatcher.close();
    await parts.release(5_000);
  };
  return running<R>(role, first, parts, listeners, lifecycle, { stop, reload }, firstOwner);
}

/** How many threads serve the gateway: `auto` is one per core this process may use. */
function threadCount(workers: 'auto' | number): number {
  return workers === 'auto' ? availableParallelism() : workers;
}

/** Starts the gateway threads, each with its own link to the store and to the trace writer's thread. */
function startGatewayThreads(
  { count, largeRequests }: { count: number; largeRequests: boolean },
  first: LoadedConfig,
  parts: ServiceParts,
  options: StartOptions<ServiceRole>,
  env: Env,
  log: Logger,
): Promise<GatewayThreads> {
  const traceWriter = parts.traceWriter!;
  return GatewayThreads.start({
    count,
    largeRequests,
    config: { path: first.path, text: options.configText, baseDir: options.baseDir },
    env,
    listen: { port: options.port ?? first.config.server.port, host: options.host ?? first.config.server.host },
    store: parts.storeLink,
    traces: () => traceWriter.connect(),
    counters: parts.sharedCounters,
    prepared: parts.store.prepared,
    spend: parts.spend,
    values: parts.processValues,
    log,
  });
}

function running<R extends ServiceRole>(
  role: ServiceRole,
  first: LoadedConfig,
  parts: ServiceParts,
  listeners: Listeners,
  lifecycle: ConfigLifecycle,
  { stop, reload }: { stop: () => Promise<void>; reload: () => Promise<ReloadResult> },
  firstOwner: FirstOwner | undefined,
): RunningService<R> {
  return {
    role,
    gatewayUrl: listeners.gatewayUrl,
    adminUrl: listeners.adminUrl,
    gatewayBound: listeners.gatewayBound,
    adminBound: listeners.adminBound,
    generatedKeys: parts.generatedKeys,
    createdApiKeys: parts.createdApiKeys,
    firstOwner,
    warnings: first.warnings,
    metrics: parts.metrics,
    db: parts.db,
    traceWriter: parts.traceWriter,
    keyStore: parts.storedKeys,
    counters: parts.counters,
    promptVersionEvents: parts.promptVersionEvents,
    webhooks: parts.webhooks,
    retention: parts.retention,
    current: () => lifecycle.active.loaded,
    reload,
    stop,
    // The gateway listener exists exactly when the role is not `admin`, which the type cannot follow from `role`.
  } as RunningService<ServiceRole> as RunningService<R>;
}
