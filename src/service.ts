// Assembles the whole service: configuration, pipeline, both listeners, reload and graceful drain.
import { watch, type FSWatcher } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, resolve } from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import type { FastifyInstance } from 'fastify';
import { createAdminServer } from '../admin/server.ts';
import { formatIssue, ConfigError } from './config/config-error.ts';
import { loadConfigFile, parseConfig, type LoadedConfig } from './config/load-config.ts';
import type { Env } from './config/interpolate.ts';
import { configKeyStore, type GeneratedKey } from './keys/key-store.ts';
import { systemClock, type Clock } from './pipeline/clock.ts';
import { resolvePlugins, setupPipeline } from './pipeline/load-pipeline.ts';
import type { Services } from './pipeline/types.ts';
import { createProviderRegistry, type ProviderRegistry } from './providers/registry.ts';
import { memoryBenchBoard, type BenchBoard } from './routing/bench-board.ts';
import { createModelGroupRegistry } from './routing/model-groups.ts';
import type { ActiveConfig } from './runtime/active-config.ts';
import { createGatewayServer, type GatewayHost } from './server/gateway-server.ts';
import { LocalStateFile } from './store/local-state.ts';
import { jsonLogger, type Logger } from './telemetry/logger.ts';
import { GatewayMetrics } from './telemetry/metrics.ts';

export interface StartOptions {
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
}

export interface RunningService {
  gatewayUrl: string;
  adminUrl: string;
  /** Keys generated on this start; their plaintext is never available again. */
  generatedKeys: GeneratedKey[];
  warnings: string[];
  metrics: GatewayMetrics;
  current(): LoadedConfig;
  /** Loads the configuration again; a bad one keeps the old and is reported on /metrics. */
  reload(): Promise<{ ok: true } | { ok: false; error: string }>;
  /** Stops taking requests, finishes in-flight ones up to the drain deadline, closes everything. */
  stop(): Promise<void>;
}

export async function startService(options: StartOptions): Promise<RunningService> {
  const env = options.env ?? process.env;
  const log = options.log ?? jsonLogger({ svc: 'gateway' });
  const clock = options.clock ?? systemClock;
  const readConfig = async (): Promise<LoadedConfig> =>
    options.configText !== undefined
      ? parseConfig(options.configText, { env, baseDir: options.baseDir })
      : loadConfigFile(options.configPath ?? 'gateway.yaml', env);

  const first = await readConfig();
  const dataDir = resolve(first.baseDir, first.config.store.data_dir);
  const localState = new LocalStateFile(dataDir);
  const dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 256 });
  const bench: BenchBoard = memoryBenchBoard();
  const providers: ProviderRegistry = createProviderRegistry({ dispatcher, now: () => clock.now(), clock });
  const metrics = new GatewayMetrics({ processMetrics: options.processMetrics });
  const generatedKeys: GeneratedKey[] = [];

  const build = async (loaded: LoadedConfig): Promise<ActiveConfig> => {
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
      keys: keys.store,
      modelGroups: createModelGroupRegistry(loaded.config.model_groups, localState, clock.now()),
      providers,
      bench,
      log,
    };
    const pipeline = await setupPipeline(loaded, await resolvePlugins(loaded), services);
    return { loaded, pipeline, services, inFlight: 0 };
  };

  let active = await build(first);
  for (const w of first.warnings) log.warn(w);
  metrics.config = { version: first.config.version, source: first.path, loadedAt: new Date(clock.now()).toISOString(), reloads: 0 };
  let draining = false;
  let inFlight = 0;
  let onIdle: (() => void) | undefined;
  metrics.inFlightNow = () => inFlight;

  const host: GatewayHost = {
    active: () => active,
    get draining() {
      return draining;
    },
    health: () => ({ ok: true, ready: !draining, reason: draining ? 'draining' : undefined }),
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
        metrics.config = { ...metrics.config, loadedAt: new Date(clock.now()).toISOString(), reloads: metrics.config.reloads + 1, lastReloadError: undefined };
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

  const gateway = createGatewayServer(host);
  const admin: FastifyInstance = createAdminServer({
    health: host.health,
    metricsJson: () => metrics.json({ deployments: { benched_until: Object.fromEntries(Object.entries(bench.snapshot(clock.now())).map(([k, v]) => [k, new Date(v).toISOString()])) } }),
    metricsText: async () => ({ contentType: metrics.registry.contentType, text: await metrics.registry.metrics() }),
  });
  const listenHost = options.host ?? first.config.server.host;
  await listen(gateway, options.port ?? first.config.server.port, listenHost);
  await admin.listen({ port: options.adminPort ?? first.config.server.admin_port, host: listenHost });

  let watcher: FSWatcher | undefined;
  if (first.path && (options.watch ?? first.config.server.watch_config)) watcher = watchConfig(first.path, () => void reload());

  const urlOf = (address: AddressInfo | string | null) => {
    const a = address as AddressInfo;
    const hostname = listenHost === '0.0.0.0' || listenHost === '::' ? '127.0.0.1' : listenHost.includes(':') ? `[${listenHost}]` : listenHost;
    return `http://${hostname}:${a.port}`;
  };

  return {
    gatewayUrl: urlOf(gateway.address()),
    adminUrl: urlOf(admin.server.address()),
    generatedKeys,
    warnings: first.warnings,
    metrics,
    current: () => active.loaded,
    reload,
    async stop() {
      if (draining) return;
      draining = true;
      watcher?.close();
      const deadline = active.loaded.config.server.drain_timeout_ms;
      const closed = new Promise<void>((done) => gateway.close(() => done()));
      gateway.closeIdleConnections();
      if (inFlight > 0) {
        await new Promise<void>((done) => {
          const timer = setTimeout(done, deadline);
          onIdle = () => {
            clearTimeout(timer);
            done();
          };
        });
      }
      gateway.closeAllConnections();
      await closed;
      await admin.close();
      await active.pipeline.close();
      if (!options.dispatcher) await dispatcher.close();
    },
  };
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
