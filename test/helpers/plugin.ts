// Plugin-level tests: a plugin's setup() and hooks called directly, with the services the contract injects made
// in memory (counters, bench board, spend ledger, trace sink) and a fake clock. No listener, no store, no network.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getGlobalDispatcher } from 'undici';
import { stringify } from 'yaml';
import { parseConfig } from '../../src/platform/config/load-config.ts';
import { createConfigAjv } from '../../src/platform/config/schema-validator.ts';
import { configKeyStore } from '../../src/gateway/keys/key-store.ts';
import { createRequestContext } from '../../src/gateway/pipeline/context.ts';
import type {
  Clock,
  GatewayConfig,
  JsonObject,
  PluginDefinition,
  PluginHooks,
  ProviderRegistry,
  RequestContext,
  RouteName,
  Services,
  Spend,
  SpendLedger,
} from '../../src/plugin-api/index.ts';
import { createProviderRegistry } from '../../src/gateway/providers/registry.ts';
import { benchBoard } from '../../src/gateway/routing/bench-board.ts';
import { createModelGroupRegistry } from '../../src/gateway/routing/model-groups.ts';
import { MemoryCounters } from '../../src/platform/store/counters/memory-counters.ts';
import { memoryProcessValues } from '../../src/platform/store/memory-values.ts';
import { LocalStateFile } from '../../src/platform/store/local-state.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { inlineWorkers } from './inline-workers.ts';
import { baseConfig } from './test-config.ts';
import { traceRecorder } from '../../src/gateway/tracing/trace-recorder.ts';
import type { TraceItem } from '../../src/gateway/tracing/trace-item.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A clock that moves only when told: `sleep` records the wait and moves time on by it at once. */
export interface FakeClock extends Clock {
  /** Every `sleep` asked for, in ms, in order. */
  readonly slept: number[];
  /** Moves time on by `ms`. */
  advance(ms: number): void;
  /** Sets the time (epoch ms). */
  set(epochMs: number): void;
}

export function fakeClock(start = Date.parse('2027-01-01T00:00:00Z')): FakeClock {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    advance(ms) {
      now += ms;
    },
    set(epochMs) {
      now = epochMs;
    },
    async sleep(ms, signal) {
      signal?.throwIfAborted();
      slept.push(ms);
      now += ms;
    },
  };
}

/** A spend ledger in memory: what was recorded, and what `spent` answers (seed it to play an earlier process). */
export interface MemoryLedger extends SpendLedger {
  readonly records: Spend[];
  /** Nano-USD already spent per `budgetId|periodId`, added to what is recorded here. */
  readonly earlier: Map<string, number>;
  /** When set, `spent` rejects with it (a store that cannot be reached). */
  failure?: Error;
}

export function memoryLedger(): MemoryLedger {
  const ledger: MemoryLedger = {
    records: [],
    earlier: new Map(),
    record(spends) {
      ledger.records.push(...spends);
    },
    async spent(budgetId, periodId) {
      if (ledger.failure) throw ledger.failure;
      const recorded = ledger.records
        .filter((s) => s.budgetId === budgetId && s.periodId === periodId)
        .reduce((sum, s) => sum + s.usdNano, 0);
      return (ledger.earlier.get(`${budgetId}|${periodId}`) ?? 0) + recorded;
    },
  };
  return ledger;
}

export type TraceItemOf = TraceItem;

export interface PluginServices extends Services {
  readonly clock: FakeClock;
  readonly counters: MemoryCounters;
  readonly spend: MemoryLedger;
  /** Traces handed to the sink, in order. */
  readonly traced: TraceItemOf[];
}

export interface ServicesOptions {
  /** Replaces parts of the test config (test/helpers/test-config.ts baseConfig): validated with gateway.schema.json. */
  config?: Record<string, unknown>;
  clock?: FakeClock;
  providers?: ProviderRegistry;
}

/** A gateway config through the real schema (defaults applied), as a plugin's `services.config` holds it. */
export function gatewayConfig(overrides: Record<string, unknown> = {}): GatewayConfig {
  return parseConfig(stringify(baseConfig(overrides)), { env: {} }).config;
}

/** The services a plugin's setup gets, in memory; the temp dir behind the key store is removed when the test ends. */
export function pluginServices(t: Teardown, options: ServicesOptions = {}): PluginServices {
  const config = gatewayConfig(options.config);
  const clock = options.clock ?? fakeClock();
  const dir = mkdtempSync(join(tmpdir(), 'svc-plugin-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const localState = new LocalStateFile(dir);
  const counters = new MemoryCounters(clock);
  const traced: TraceItemOf[] = [];
  const dispatcher = getGlobalDispatcher();
  return {
    config,
    baseDir: dir,
    clock,
    dispatcher,
    keys: configKeyStore(config.keys, localState).store,
    modelGroups: createModelGroupRegistry(config.model_groups, localState, clock.now()),
    providers:
      options.providers ??
      createProviderRegistry({
        dispatcher,
        now: () => clock.now(),
        clock,
        workers: inlineWorkers,
        baseDir: dir,
        log: silentLogger,
      }),
    bench: benchBoard(counters),
    traces: traceRecorder({ enqueue: (item) => traced.push(item) }, config),
    traced,
    counters,
    processValues: memoryProcessValues(clock),
    spend: memoryLedger(),
    workers: inlineWorkers,
    log: silentLogger,
  };
}

const ajv = createConfigAjv();

/** Validates `config` with the plugin's schema (defaults applied, as the loader does), then runs its setup. */
export async function setupPlugin<C>(
  definition: PluginDefinition<C>,
  services: Services,
  config: Record<string, unknown> = {},
): Promise<PluginHooks> {
  const copy = structuredClone(config);
  if (definition.configSchema) {
    const validate = ajv.compile(definition.configSchema);
    if (!validate(copy)) throw new Error(`invalid ${definition.name} config: ${ajv.errorsText(validate.errors)}`);
  }
  return (await definition.setup(copy as C, services)) ?? {};
}

export interface CtxOptions {
  route?: RouteName;
  body?: JsonObject;
  headers?: Record<string, string>;
  clientIp?: string;
  clock?: Clock;
}

export interface TestCtx extends RequestContext {
  /** The client goes away: `signal` aborts and `clientAborted` is set, as the listener does. */
  leave(): void;
}

/** A request context made as the gateway listener makes it (src/gateway/pipeline/context.ts), for a validated body. */
export function makeCtx(options: CtxOptions = {}): TestCtx {
  const route = options.route ?? 'chat';
  const body =
    route === 'models'
      ? undefined
      : (options.body ?? { model: 'demo', messages: [{ role: 'user', content: 'Hello' }] });
  const { ctx, leave } = createRequestContext({
    id: randomUUID(),
    route,
    receivedAt: (options.clock ?? { now: Date.now }).now(),
    overheadFrom: performance.now(),
    headers: options.headers ?? {},
    clientIp: 'clientIp' in options ? options.clientIp : '127.0.0.1',
    body,
    log: silentLogger,
  });
  return Object.assign(ctx, { leave });
}
