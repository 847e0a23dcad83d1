// One gateway thread (gateway-threads.ts starts them): its own HTTP server on the shared port, pipeline, key store,
// providers and metrics, over what the process shares. Limits, budgets and marks are exact across threads because
// the counters are shared (a SharedArrayBuffer, or Redis); traces go straight to the trace writer's thread, spend to
// the main thread's ledger, log records to the main thread's logger. The main thread owns the store's configuration
// side: it bootstraps and generates keys first, then asks each thread to follow.
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { LoadedConfig } from '../platform/config/load-config.ts';
import { systemClock } from '../platform/clock.ts';
import { benchBoard } from '../gateway/routing/bench-board.ts';
import { createGatewayServer } from '../gateway/server/gateway-server.ts';
import { StoredKeyStore } from '../gateway/keys/stored-key-store.ts';
import { TracePortSink } from '../gateway/tracing/trace-port-sink.ts';
import { openCounters } from '../platform/store/counters/open-counters.ts';
import { gatedDatabase } from '../platform/store/gated-database.ts';
import { LocalStateFile } from '../platform/store/local-state.ts';
import { pgliteOverPort } from '../platform/store/pglite-database.ts';
import { openPostgres } from '../platform/store/postgres-database.ts';
import { forwardingLogger } from '../platform/telemetry/forwarding-logger.ts';
import { GatewayMetrics } from '../platform/telemetry/metrics.ts';
import { ConfigLifecycle, readConfig } from './config-lifecycle.ts';
import { RequestDrain } from './drain.ts';
import { gatewayHost, listen } from './listeners.ts';
import { openProviders, type ServingParts } from './service-parts.ts';
import type {
  FromGatewayThread,
  GatewayThreadData,
  ThreadMetrics,
  ThreadRequest,
  ToGatewayThread,
} from './gateway-thread-messages.ts';
import { SpendRelay } from './spend-relay.ts';
import { threadMetrics } from './merged-metrics.ts';
import { ProcessValuesClient } from './process-values-relay.ts';

const post = (m: FromGatewayThread) => parentPort!.postMessage(m);

async function main(): Promise<void> {
  const data = workerData as GatewayThreadData;
  const log = forwardingLogger(post, { gateway_thread: data.index });
  const clock = systemClock;
  const read = () => readConfig(data.config, data.env);
  const { loaded: first, plugins } = await read();
  const parts = await openParts(data, first, log);
  const { spend } = parts;
  const lifecycle = new ConfigLifecycle(first, { read, storeOwner: false });
  await lifecycle.start(parts, plugins);

  const drain = new RequestDrain();
  parts.metrics.inFlightNow = () => drain.inFlight;
  // The large-request thread's socket carries requests other threads pass through, with their client's address.
  const passedThrough = 'path' in data.listen;
  const host = gatewayHost(parts, lifecycle, drain, { largeRequests: data.largeRequests, passedThrough });
  const server = createGatewayServer(host, first.config.server);
  await listen(server, data.listen, true);

  // Resolves once the store's keys were read (or the read failed and polling goes on): until then they count as stale.
  // Started once, whether the store was prepared when the thread started or became so later.
  let polling: Promise<void> | undefined;
  const startPolling = () => {
    parts.prepared = true;
    polling ??= parts.storedKeys
      .start(first.config.store.key_poll_ms)
      .catch((err: Error) => log.warn('gateway key refresh failed; serving keys from memory', { error: err.message }));
    return polling;
  };
  if (parts.prepared) await startPolling();

  const answer = async (request: ThreadRequest): Promise<ThreadMetrics | undefined> => {
    switch (request.type) {
      case 'reload': {
        const result = await lifecycle.reload();
        if (!result.ok) throw new Error(result.error);
        return;
      }
      case 'prepared':
        return void (await startPolling());
      case 'refresh-keys':
        return void (await parts.storedKeys.refresh());
      case 'metrics':
        return threadMetrics(parts.metrics);
      case 'drain':
        drain.begin();
        await drain.closeGateway(server, request.deadlineMs);
        await lifecycle.active.pipeline.close();
        parts.storedKeys.stop();
        spend.flush();
        await Promise.all([parts.counters.close(), parts.workers.close(), parts.dispatcher.close()]);
        await parts.traceSink.close();
        await parts.db.close().catch(() => {});
    }
  };
  parentPort!.on('message', (m: ToGatewayThread) => {
    if (m.type === 'spent') return spend.answered(m);
    if (m.type === 'value') return parts.values.answered(m);
    answer(m).then(
      (metrics) => {
        post({ type: 'done', id: m.id, metrics });
        // Drained and closed: the thread ends itself here, between tasks, never inside a shared-counters step (as a
        // terminate() from outside could).
        if (m.type === 'drain') process.exit(0);
      },
      (err: Error) => post({ type: 'done', id: m.id, error: err.message }),
    );
  });
  post({ type: 'listening', address: server.address() as AddressInfo | string });
}

type ThreadParts = ServingParts & {
  traceSink: TracePortSink;
  spend: SpendRelay;
  values: ProcessValuesClient;
  /** The store is prepared: its key polling runs and the gate lets queries through. */
  prepared: boolean;
};

async function openParts(data: GatewayThreadData, first: LoadedConfig, log: ServingParts['log']): Promise<ThreadParts> {
  const clock = systemClock;
  const dataDir = resolve(first.baseDir, first.config.store.data_dir);
  const { dispatcher, workers, providers } = openProviders(first.baseDir, clock, log);
  const raw = data.store.kind === 'pglite' ? pgliteOverPort(data.store.port) : openPostgres(data.store.url);
  const counters = await openCounters(first.config.store, clock, log, data.counters);
  const values = new ProcessValuesClient(post);
  const parts: ThreadParts = {
    log,
    clock,
    // Read afresh for each configuration built: the main thread wrote what its own build generated just before.
    get localState() {
      return new LocalStateFile(dataDir);
    },
    dispatcher,
    workers,
    providers,
    metrics: new GatewayMetrics({ processMetrics: false }),
    db: gatedDatabase(raw, () => parts.prepared),
    storedKeys: new StoredKeyStore(raw, { log }),
    traceSink: new TracePortSink(data.traces),
    spend: new SpendRelay(post),
    values,
    processValues: values.values,
    counters,
    bench: benchBoard(counters),
    createdApiKeys: [],
    generatedKeys: [],
    prepared: data.prepared,
  };
  return parts;
}

await main();
