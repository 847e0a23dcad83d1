// Assembles the whole service: configuration, pipeline, the listeners and background loops of its role, reload and
// graceful drain.
import { watch, type FSWatcher } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, resolve } from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import type { FastifyInstance } from 'fastify';
import { createAdminServer, type AdminSurfaces } from '../admin/server.ts';
import { formatIssue, ConfigError } from './config/config-error.ts';
import { loadConfigFile, parseConfig, type LoadedConfig } from './config/load-config.ts';
import type { Env } from './config/interpolate.ts';
import { runCommand } from './control/commands.ts';
import { serviceControlSocket } from './control/control-socket.ts';
import { configKeyStore, type GeneratedKey } from './keys/key-store.ts';
import { combinedKeyStore, StoredKeyStore } from './keys/stored-key-store.ts';
import { bootstrapStore } from './store/bootstrap.ts';
import type { Database } from './store/database.ts';
import { openStore } from './store/open-store.ts';
import { openCounters } from './store/counters/open-counters.ts';
import type { Counters } from './store/counters/counters.ts';
import type { CreatedApiKey } from './store/repos/api-keys.ts';
import { RetentionSweep } from './store/retention-sweep.ts';
import { TraceWriter } from './tracing/trace-writer.ts';
import { ensureFirstOwner, type FirstOwner } from './users/first-owner.ts';
import { DurableSpendLedger } from './budget/spend-ledger.ts';
import { createWorkerPool } from './workers/pool.ts';
import { systemClock, type Clock } from './pipeline/clock.ts';
import { resolvePlugins, setupPipeline } from './pipeline/load-pipeline.ts';
import type { Services } from './pipeline/types.ts';
import { createProviderRegistry, type ProviderRegistry } from './providers/registry.ts';
import { benchBoard, benchState, type BenchBoard } from './routing/bench-board.ts';
import { createModelGroupRegistry } from './routing/model-groups.ts';
import type { ActiveConfig } from './runtime/active-config.ts';
import { createGatewayServer, type GatewayHost } from './server/gateway-server.ts';
import { LocalStateFile } from './store/local-state.ts';
import { jsonLogger, logLevelOf, type Logger } from './telemetry/logger.ts';
import { GatewayMetrics } from './telemetry/metrics.ts';
import { WebhookDelivery } from './webhooks/delivery-loop.ts';
import { OutboxRecorder } from './webhooks/outbox-recorder.ts';
import type { PromptVersionEvents } from './webhooks/prompt-version-events.ts';

/**
 * What a process serves (ARCHITECTURE.md section 1). `all`: both listeners and every background loop. `gateway`: the
 * gateway listener, with what serving needs (key polling, config reload, the trace writer and its metric rollups,
 * the spend ledger), and on the admin port only /health, /ready and /metrics. `admin`: the admin listener and the
 * background loops (webhook delivery, retention sweep), no gateway listener.
 */
export type ServiceRole = 'all' | 'gateway' | 'admin';
export const SERVICE_ROLES: readonly ServiceRole[] = ['all', 'gateway', 'admin'];

export interface StartOptions<R extends ServiceRole = 'all'> {
  /** What this process serves (default `all`). */
  role?: R;
  /** Path of gateway.yaml; or `configText` for an in-memory config (tests). */
  configPath?: string;
  configText?: string;
  /** Directory relative paths resolve against when `configText` is used. */
  baseDir?: string;
  env?: Env;
  port?: number;
  adminPort?: number;
  host?: string;
  log?: Logger;
  clock?: Clock;
  dispatcher?: Dispatcher;
  /** Watch the config file and reload on change (default: `server.watch_config`). */
  watch?: boolean;
  processMetrics?: boolean;
  /** Called with each key generated on start or reload: the only time its plaintext exists. */
  onGeneratedKey?: (key: GeneratedKey) => void;
  /** Called with each project key pair created on first start: the only time its secret exists. */
  onCreatedApiKey?: (key: CreatedApiKey) => void;
  /** Receives prompt-version changes from the admin listener (tests pass a recorder). */
  promptEvents?: PromptVersionEvents;
  /** Called with the dashboard owner created on a start with no user, and the dashboard's URL: the only time its password exists. */
  onFirstOwner?: (owner: FirstOwner, dashboardUrl: string) => void;
}

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
  /** The dashboard owner created on this start (no user in the store yet). */
  firstOwner?: FirstOwner;
  warnings: string[];
  metrics: GatewayMetrics;
  db: Database;
  traceWriter: TraceWriter;
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
  reload(): Promise<{ ok: true } | { ok: false; error: string }>;
  /** Stops taking requests, finishes in-flight ones up to the drain deadline, closes everything. */
  stop(): Promise<void>;
}

export async function startService<R extends ServiceRole = 'all'>(
  options: StartOptions<R>,
): Promise<RunningService<R>> {
  const role = options.role ?? 'all';
  const servesGateway = role !== 'admin';
  const servesAdmin = role !== 'gateway';
  const env = options.env ?? process.env;
  const log = options.log ?? jsonLogger({ svc: 'gateway' }, undefined, logLevelOf(env.SVC_LOG_LEVEL));
  const clock = options.clock ?? systemClock;
  const readConfig = async (): Promise<LoadedConfig> =>
    options.configText !== undefined
      ? parseConfig(options.configText, { env, baseDir: options.baseDir })
      : loadConfigFile(options.configPath ?? 'gateway.yaml', env);

  const first = await readConfig();
  // Plugin modules and their config are checked before the store opens, so a bad file fails fast.
  const firstPlugins = await resolvePlugins(first);
  const dataDir = resolve(first.baseDir, first.config.store.data_dir);
  const localState = new LocalStateFile(dataDir);
  const dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 256 });
  const workers = createWorkerPool();
  const providers: ProviderRegistry = createProviderRegistry({
    dispatcher,
    now: () => clock.now(),
    clock,
    workers,
    baseDir: first.baseDir,
    log,
  });
  const metrics = new GatewayMetrics({ processMetrics: options.processMetrics });
  const generatedKeys: GeneratedKey[] = [];

  // The embedded store has one owner; its control socket both proves that and lets `svc keys create` etc. reach it.
  const control = first.config.store.postgres_url ? undefined : await serviceControlSocket(dataDir, log);
  const db = await openStore(first.config, first.baseDir).catch(async (err: unknown) => {
    await control?.close();
    throw err;
  });
  const storeUrl = first.config.store.postgres_url;
  const createdApiKeys = await bootstrapStore(db, first.config, clock.now());
  for (const k of createdApiKeys) options.onCreatedApiKey?.(k);
  // The dashboard's first owner is made (and its password printed) where the dashboard is served.
  const firstOwner = servesAdmin ? await ensureFirstOwner(db, first.config.organization.id) : undefined;
  const storedKeys = new StoredKeyStore(db, { log });
  await storedKeys.start(first.config.store.key_poll_ms);
  control?.serve((request) => runCommand({ db, now: () => clock.now(), changed: () => storedKeys.refresh() }, request));
  const traceWriter = new TraceWriter(db, {
    spillDir: resolve(dataDir, 'trace-spill'),
    log,
    capacity: first.config.store.trace_queue_capacity,
    batchSize: first.config.store.trace_batch_size,
  });
  metrics.telemetry = () => traceWriter.snapshot();
  const spend = new DurableSpendLedger(db, { spillDir: resolve(dataDir, 'spend-spill'), log });
  // Gateway traces (with their metric rollups) and spend are written where requests are served; the admin role only
  // reads them, so its writers never start (a data_dir's spill files are replayed by a process serving the gateway).
  if (servesGateway) {
    traceWriter.start();
    spend.start();
  }
  const counters = await openCounters(first.config.store, clock, log);
  const countersUrl = first.config.store.redis_url;
  const bench: BenchBoard = benchBoard(counters);
  metrics.benchState = () => benchState(bench, active.loaded.config.model_groups);

  // --- Webhook automations (docs/webhooks.md): events go to the outbox in the changing transaction; this loop
  // delivers them, on every replica (claims keep replicas off each other's rows). Settings follow reloads.
  const webhooks = new WebhookDelivery({
    db,
    workers,
    log,
    settings: () => active.loaded.config.webhooks,
    now: () => clock.now(),
  });
  metrics.webhooks = () => webhooks.stats;
  const retention = new RetentionSweep(db, log, () => clock.now());
  const promptVersionEvents = new OutboxRecorder({ now: () => clock.now(), recorded: () => webhooks.wake() });
  // --- end webhook automations (started below, once the configuration is active)

  const build = async (loaded: LoadedConfig, isFirst = false): Promise<ActiveConfig> => {
    if (!isFirst) {
      if (loaded.config.store.postgres_url !== storeUrl)
        log.warn('store.postgres_url changed; it takes effect on restart');
      if (loaded.config.store.redis_url !== countersUrl)
        log.warn('store.redis_url changed; it takes effect on restart');
      // A project added by the reload gets its key pair now: printed like the first start's, once.
      for (const k of await bootstrapStore(db, loaded.config, clock.now())) {
        createdApiKeys.push(k);
        options.onCreatedApiKey?.(k);
      }
      await storedKeys.refresh();
    }
    const keys = configKeyStore(loaded.config.keys, localState);
    for (const g of keys.generated) {
      generatedKeys.push(g);
      options.onGeneratedKey?.(g);
    }
    const services: Services = {
      config: loaded.config,
      baseDir: loaded.baseDir,
      clock,
      dispatcher,
      keys: combinedKeyStore(
        keys.store,
        storedKeys,
        loaded.config.store.max_key_staleness_s * 1000,
        new Set(loaded.config.projects.filter((p) => !p.serving).map((p) => p.id)),
      ),
      modelGroups: createModelGroupRegistry(loaded.config.model_groups, localState, clock.now()),
      providers,
      bench,
      traces: traceWriter,
      counters,
      spend,
      workers,
      log,
    };
    const pipeline = await setupPipeline(loaded, isFirst ? firstPlugins : await resolvePlugins(loaded), services);
    return { loaded, pipeline, services, inFlight: 0 };
  };

  const releaseStore = async (flushMs = 0) => {
    storedKeys.stop();
    await Promise.all([webhooks.stop(), retention.stop()]);
    await counters.close();
    await Promise.all([traceWriter.stop(flushMs), spend.stop(flushMs), workers.close()]);
    const closeDb = () => db.close().catch(() => {});
    await (control ? control.close(closeDb) : closeDb());
  };
  let active: ActiveConfig;
  try {
    active = await build(first, true);
  } catch (err) {
    await releaseStore();
    throw err;
  }
  if (servesAdmin) {
    webhooks.start();
    retention.start();
  }
  for (const w of first.warnings) log.warn(w);
  metrics.config = {
    version: first.config.version,
    source: first.path,
    loadedAt: new Date(clock.now()).toISOString(),
    reloads: 0,
  };
  let draining = false;
  let inFlight = 0;
  let onIdle: (() => void) | undefined;
  metrics.inFlightNow = () => inFlight;

  const host: GatewayHost = {
    active: () => active,
    get draining() {
      return draining;
    },
    health: () => {
      const storeOk = storedKeys.sinceLastRefresh() <= Math.max(3 * active.loaded.config.store.key_poll_ms, 5_000);
      if (!storeOk) return { ok: false, ready: false, reason: 'store_unavailable' };
      // Limits cannot be enforced without the shared counters: not ready (requests get 503 gateway_config_stale).
      if (!counters.available()) return { ok: true, ready: false, reason: 'counters_unavailable' };
      return { ok: true, ready: !draining, reason: draining ? 'draining' : undefined };
    },
    metrics,
    log,
    now: () => clock.now(),
    requestStarted(a) {
      a.inFlight++;
      inFlight++;
    },
    requestFinished(a) {
      a.inFlight--;
      inFlight--;
      if (a.inFlight === 0 && a !== active) a.onDrained?.();
      if (inFlight === 0) onIdle?.();
    },
  };

  let reloading: Promise<{ ok: true } | { ok: false; error: string }> | undefined;
  const reload = (): Promise<{ ok: true } | { ok: false; error: string }> => {
    // Reloads run one at a time; a request for one during another waits for it and runs after.
    const run = async () => {
      try {
        const next = await build(await readConfig());
        const previous = active;
        active = next;
        retire(previous);
        for (const w of next.loaded.warnings) log.warn(w);
        metrics.config = {
          ...metrics.config,
          loadedAt: new Date(clock.now()).toISOString(),
          reloads: metrics.config.reloads + 1,
          lastReloadError: undefined,
        };
        metrics.configReloads.inc({ result: 'ok' });
        metrics.configStale.set(0);
        log.info('configuration reloaded', { source: next.loaded.path });
        return { ok: true as const };
      } catch (err) {
        const message = err instanceof ConfigError ? err.issues.map(formatIssue).join('; ') : (err as Error).message;
        metrics.config = { ...metrics.config, lastReloadError: { at: new Date(clock.now()).toISOString(), message } };
        metrics.configReloads.inc({ result: 'error' });
        metrics.configStale.set(1);
        log.error('configuration reload failed; the previous configuration stays active', { error: message });
        return { ok: false as const, error: message };
      }
    };
    reloading = (reloading ?? Promise.resolve()).then(run, run);
    return reloading;
  };

  const retire = (old: ActiveConfig) => {
    const close = () => void old.pipeline.close();
    if (old.inFlight === 0) close();
    else old.onDrained = close;
  };

  const gateway = servesGateway ? createGatewayServer(host, first.config.server) : undefined;
  const adminSurfaces: AdminSurfaces = servesAdmin ? 'all' : 'status';
  const admin: FastifyInstance = createAdminServer(
    {
      db,
      clock,
      log,
      config: () => active.loaded.config,
      modelGroups: () => active.services.modelGroups,
      keys: storedKeys,
      bench,
      providers,
      spend,
      counters,
      // The webhook outbox always records; a recorder passed in (tests) sees the same events in the same transaction.
      promptEvents: options.promptEvents
        ? {
            record: async (tx, events) => (
              await promptVersionEvents.record(tx, events),
              options.promptEvents!.record(tx, events)
            ),
          }
        : promptVersionEvents,
      health: host.health,
      metricsJson: async () => {
        const state = await metrics.benchState();
        const benchedUntil = Object.fromEntries(
          state.benched.map((b) => [b.deployment, new Date(b.until).toISOString()]),
        );
        return metrics.json({
          deployments: { benched_until: benchedUntil, ...(state.error ? { bench_state_error: state.error } : {}) },
        });
      },
      metricsText: async () => ({ contentType: metrics.registry.contentType, text: await metrics.registry.metrics() }),
    },
    adminSurfaces,
  );
  const gatewayHost = options.host ?? first.config.server.host;
  const adminHost = options.host ?? first.config.server.admin_host;
  try {
    if (gateway) await listen(gateway, options.port ?? first.config.server.port, gatewayHost);
    await admin.listen({ port: options.adminPort ?? first.config.server.admin_port, host: adminHost });
  } catch (err) {
    gateway?.close();
    await admin.close();
    await active.pipeline.close();
    await releaseStore();
    throw err;
  }

  let watcher: FSWatcher | undefined;
  if (first.path && (options.watch ?? first.config.server.watch_config))
    watcher = watchConfig(first.path, () => void reload());

  /** A URL to reach a listener from this machine (a wildcard address is reached on loopback). */
  const urlOf = (address: AddressInfo | string | null) => {
    const a = address as AddressInfo;
    const hostname =
      a.address === '0.0.0.0' || a.address === '::'
        ? '127.0.0.1'
        : a.address.includes(':')
          ? `[${a.address}]`
          : a.address;
    return `http://${hostname}:${a.port}`;
  };

  if (firstOwner) {
    const dashboardUrl = `${urlOf(admin.server.address())}/dashboard/`;
    // The password goes to stdout only (the CLI prints it): structured logs are often shipped where secrets must not go.
    log.info('dashboard owner created; its sign-in is printed on stdout once', {
      dashboardUrl,
      email: firstOwner.email,
    });
    options.onFirstOwner?.(firstOwner, dashboardUrl);
  }

  return {
    role,
    gatewayUrl: gateway && urlOf(gateway.address()),
    adminUrl: urlOf(admin.server.address()),
    gatewayBound: gateway && (gateway.address() as AddressInfo),
    adminBound: admin.server.address() as AddressInfo,
    generatedKeys,
    createdApiKeys,
    firstOwner,
    warnings: first.warnings,
    metrics,
    db,
    traceWriter,
    keyStore: storedKeys,
    counters,
    promptVersionEvents,
    webhooks,
    retention,
    current: () => active.loaded,
    reload,
    async stop() {
      if (draining) return;
      draining = true;
      watcher?.close();
      const deadline = active.loaded.config.server.drain_timeout_ms;
      // The gateway listener keeps accepting until the drain ends: /ready answers 503 draining and new requests a coded
      // 503 with connection: close (gateway-server.ts), so clients and load balancers learn to go elsewhere.
      gateway?.closeIdleConnections();
      if (inFlight > 0) {
        await new Promise<void>((done) => {
          const timer = setTimeout(done, deadline);
          onIdle = () => {
            clearTimeout(timer);
            done();
          };
        });
      }
      const closed = new Promise<void>((done) => (gateway ? gateway.close(() => done()) : done()));
      gateway?.closeAllConnections();
      await closed;
      await admin.close();
      await active.pipeline.close();
      if (!options.dispatcher) await dispatcher.close();
      await releaseStore(5_000);
    },
    // The gateway listener exists exactly when the role is not `admin`, which the type cannot follow from `role`.
  } as RunningService<ServiceRole> as RunningService<R>;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
}

/** Watches the directory (editors replace files on save) and debounces bursts of events. */
function watchConfig(path: string, onChange: () => void): FSWatcher {
  const name = basename(path);
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dirname(path), (_event, file) => {
    if (file !== null && file !== name) return;
    clearTimeout(timer);
    timer = setTimeout(onChange, 150);
  });
  watcher.unref();
  return watcher;
}
