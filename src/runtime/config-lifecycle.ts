// The configuration's lifecycle: each configuration is built whole (key store, model groups, pipeline) over the
// service's parts, swapped in atomically on reload, and the one it replaced is retired once its requests finished.
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { formatIssue, ConfigError } from '../platform/config/config-error.ts';
import { inspectConfig, inspectConfigFile, type LoadedConfig } from '../platform/config/load-config.ts';
import type { Env } from '../platform/config/interpolate.ts';
import { BUILTIN_PLUGINS } from '../../plugins/index.ts';
import { configWarnings } from '../gateway/keys/expiry-warnings.ts';
import { configKeyStore } from '../gateway/keys/key-store.ts';
import { combinedKeyStore } from '../gateway/keys/stored-key-store.ts';
import {
  checkConfig,
  setupPipeline,
  type CheckedConfig,
  type ResolvedPlugin,
} from '../gateway/pipeline/load-pipeline.ts';
import { createModelGroupRegistry } from '../gateway/routing/model-groups.ts';
import { bootstrapStore } from './bootstrap.ts';
import type { ActiveConfig } from '../gateway/server/active-config.ts';
import type { ServingParts } from './service-parts.ts';
import type { StartOptions } from './start-options.ts';
import type { Services } from '../plugin-api/services.ts';
import { traceRecorder } from '../gateway/tracing/trace-recorder.ts';

/** Where a configuration is read from: the file, or the text a test started the service with. */
export interface ConfigSource {
  path?: string;
  text?: string;
  baseDir?: string;
}

/** Reads and checks a configuration: every schema, reference and plugin problem at once. */
export async function readConfig(source: ConfigSource, env: Env): Promise<CheckedConfig> {
  return checkConfig(
    source.text !== undefined
      ? inspectConfig(source.text, { env, baseDir: source.baseDir })
      : await inspectConfigFile(source.path ?? 'gateway.yaml', env),
    BUILTIN_PLUGINS,
  );
}

export type ReloadResult = { ok: true } | { ok: false; error: string };

type LifecycleOptions = Pick<StartOptions, 'onCreatedApiKey' | 'onGeneratedKey'> & {
  /** Reads and checks the configuration again (file or text), for a reload. */
  read: () => Promise<CheckedConfig>;
  /**
   * This lifecycle owns the store's configuration side (default): a reload bootstraps new projects' rows and key
   * pairs. A gateway thread's lifecycle follows the main thread's, which did that first.
   */
  storeOwner?: boolean;
};

export class ConfigLifecycle {
  readonly #first: LoadedConfig;
  readonly #options: LifecycleOptions;
  #parts!: ServingParts;
  #active!: ActiveConfig;
  #reloading: Promise<ReloadResult> | undefined;

  constructor(first: LoadedConfig, options: LifecycleOptions) {
    this.#first = first;
    this.#options = options;
  }

  /** The configuration serving new requests (once started). */
  get active(): ActiveConfig {
    return this.#active;
  }

  /** Builds the first configuration over the service's parts, from its plugins resolved before the store opened. */
  async start(parts: ServingParts, plugins: ResolvedPlugin[]): Promise<void> {
    this.#parts = parts;
    this.#active = await this.#build(this.#first, plugins);
  }

  /** Announces the first configuration: its warnings in the log, its status on /metrics. */
  announceFirst(): void {
    const { log, metrics, clock } = this.#parts;
    const first = this.#first;
    announceWarnings(first, this.#parts);
    metrics.config = {
      version: first.config.version,
      source: first.path,
      loadedAt: new Date(clock.now()).toISOString(),
      reloads: 0,
    };
  }

  /** Loads the configuration again; a bad one keeps the old and is reported on /metrics. */
  reload(): Promise<ReloadResult> {
    // Reloads run one at a time; a request for one during another waits for it and runs after.
    const run = () => this.#reloadOnce();
    this.#reloading = (this.#reloading ?? Promise.resolve()).then(run, run);
    return this.#reloading;
  }

  requestStarted(a: ActiveConfig): void {
    a.inFlight++;
  }

  requestFinished(a: ActiveConfig): void {
    a.inFlight--;
    if (a.inFlight === 0 && a !== this.#active) a.onDrained?.();
  }

  async #reloadOnce(): Promise<ReloadResult> {
    const { log, metrics, clock } = this.#parts;
    try {
      const next = await this.#rebuild(await this.#options.read());
      const previous = this.#active;
      this.#active = next;
      retire(previous);
      // The main thread's lifecycle announces them once for every thread.
      if (this.#options.storeOwner !== false) announceWarnings(next.loaded, this.#parts);
      metrics.config = {
        ...metrics.config,
        loadedAt: new Date(clock.now()).toISOString(),
        reloads: metrics.config.reloads + 1,
        lastReloadError: undefined,
      };
      metrics.configReloads.inc({ result: 'ok' });
      metrics.configStale.set(0);
      log.info('configuration reloaded', { source: next.loaded.path });
      return { ok: true };
    } catch (err) {
      const message = err instanceof ConfigError ? err.issues.map(formatIssue).join('; ') : (err as Error).message;
      metrics.config = { ...metrics.config, lastReloadError: { at: new Date(clock.now()).toISOString(), message } };
      metrics.configReloads.inc({ result: 'error' });
      metrics.configStale.set(1);
      log.error('configuration reload failed; the previous configuration stays active', { error: message });
      return { ok: false, error: message };
    }
  }

  /** A reloaded configuration: store changes noted, new projects' key pairs created, stored keys read again. */
  async #rebuild({ loaded, plugins }: CheckedConfig): Promise<ActiveConfig> {
    const { log, db, clock, createdApiKeys, storedKeys } = this.#parts;
    if (this.#options.storeOwner === false) {
      await storedKeys.refresh();
      return this.#build(loaded, plugins);
    }
    if (loaded.config.store.postgres_url !== this.#first.config.store.postgres_url)
      log.warn('store.postgres_url changed; it takes effect on restart');
    if (loaded.config.store.redis_url !== this.#first.config.store.redis_url)
      log.warn('store.redis_url changed; it takes effect on restart');
    // A project added by the reload gets its key pair now: printed like the first start's, once.
    for (const k of await bootstrapStore(db, loaded.config, clock.now())) {
      createdApiKeys.push(k);
      this.#options.onCreatedApiKey?.(k);
    }
    await storedKeys.refresh();
    return this.#build(loaded, plugins);
  }

  async #build(loaded: LoadedConfig, plugins: ResolvedPlugin[]): Promise<ActiveConfig> {
    const p = this.#parts;
    const keys = configKeyStore(loaded.config.keys, p.localState);
    for (const g of keys.generated) {
      p.generatedKeys.push(g);
      this.#options.onGeneratedKey?.(g);
    }
    const services: Services = {
      config: loaded.config,
      baseDir: loaded.baseDir,
      clock: p.clock,
      dispatcher: p.dispatcher,
      keys: combinedKeyStore(
        keys.store,
        p.storedKeys,
        loaded.config.store.max_key_staleness_s * 1000,
        new Set(loaded.config.projects.filter((project) => !project.serving).map((project) => project.id)),
      ),
      modelGroups: createModelGroupRegistry(loaded.config.model_groups, p.localState, p.clock.now()),
      providers: p.providers,
      bench: p.bench,
      traces: traceRecorder(p.traceSink, loaded.config),
      counters: p.counters,
      processValues: p.processValues,
      spend: p.spend,
      workers: p.workers,
      log: p.log,
    };
    const pipeline = await setupPipeline(loaded, plugins, services);
    return { loaded, pipeline, services, inFlight: 0 };
  }
}

/** A configuration's warnings, and its keys' expiry as of now, in the log. */
function announceWarnings(loaded: LoadedConfig, { log, clock }: ServingParts): void {
  for (const w of configWarnings(loaded, clock.now())) log.warn(w);
}

/** Closes a replaced configuration's pipeline now, or when its last request finishes. */
function retire(old: ActiveConfig): void {
  const close = () => void old.pipeline.close();
  if (old.inFlight === 0) close();
  else old.onDrained = close;
}

/** Watches the directory (editors replace files on save) and debounces bursts of events. */
export function watchConfig(path: string, onChange: () => void): FSWatcher {
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
