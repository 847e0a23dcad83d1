// The service's two listeners: the gateway listener (none in role admin) and the admin listener (every surface, or
// only /health, /ready and /metrics in role gateway), each bound where the start options or the configuration say.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdminHost } from '../../admin/server.ts';
import { createStatusServer } from '../../admin/status-server.ts';
import type { GatewayConfig } from '../platform/config/types.ts';
import { createGatewayServer, type GatewayHost } from '../gateway/server/gateway-server.ts';
import type { ConfigLifecycle } from './config-lifecycle.ts';
import type { Health } from '../gateway/server/probe.ts';
import type { GatewayThreads } from './gateway-threads.ts';
import { mergedJson, mergedPrometheus, threadMetrics } from './merged-metrics.ts';
import { portInUse, type ListenAddress } from './port-in-use.ts';
import type { RequestDrain } from './drain.ts';
import type { ServiceParts, ServingParts } from './service-parts.ts';
import type { RoleWork } from './service-role.ts';
import type { StartOptions } from './start-options.ts';

/** The admin port's listener: the admin surfaces' Fastify app, or a gateway replica's status server. */
interface AdminListener {
  server: Server;
  listen(at: ListenAddress): Promise<void>;
  close(): Promise<void>;
}

export interface Listeners {
  gateway: Server | undefined;
  admin: AdminListener;
  /** A URL to reach each listener from this machine, and its address as the operating system reports it. */
  gatewayUrl: string | undefined;
  gatewayBound: AddressInfo | undefined;
  adminUrl: string;
  adminBound: AddressInfo;
}

/**
 * What the gateway listener asks of the service: the active configuration, health, and request accounting; `passing`:
 * where requests with large bodies go, or that this listener is the one they are passed to.
 */
export function gatewayHost(
  parts: ServingParts,
  lifecycle: ConfigLifecycle,
  drain: RequestDrain,
  passing: Pick<GatewayHost, 'largeRequests' | 'passedThrough'> = {},
): GatewayHost {
  const { storedKeys, counters } = parts;
  return {
    ...passing,
    active: () => lifecycle.active,
    get draining() {
      return drain.draining;
    },
    health: () => {
      const storeOk =
        storedKeys.sinceLastRefresh() <= Math.max(3 * lifecycle.active.loaded.config.store.key_poll_ms, 5_000);
      if (!storeOk) return { ok: false, ready: false, reason: 'store_unavailable' };
      // Limits cannot be enforced without the shared counters: not ready (requests get 503 gateway_config_stale).
      if (!counters.available()) return { ok: true, ready: false, reason: 'counters_unavailable' };
      return { ok: true, ready: !drain.draining, reason: drain.draining ? 'draining' : undefined };
    },
    metrics: parts.metrics,
    log: parts.log,
    now: () => parts.clock.now(),
    requestStarted(a) {
      lifecycle.requestStarted(a);
      drain.requestStarted();
    },
    requestFinished(a) {
      lifecycle.requestFinished(a);
      drain.requestFinished();
    },
  };
}

/** Creates the listeners the role serves and binds them; on a failure to bind, closes them again. */
export async function openListeners(
  parts: ServiceParts,
  lifecycle: ConfigLifecycle,
  host: GatewayHost,
  work: RoleWork,
  options: Pick<StartOptions, 'host' | 'port' | 'adminPort' | 'promptEvents'>,
  server: GatewayConfig['server'],
  threads?: GatewayThreads,
): Promise<Listeners> {
  // Gateway threads on the port have their own gateway listeners there.
  const gateway = work.gateway && !threads?.address ? createGatewayServer(host, server) : undefined;
  const admin = await adminListener(adminHost(parts, lifecycle, host, options, threads), work.adminSurfaces);
  const gatewayAt = { port: options.port ?? server.port, host: options.host ?? server.host };
  const adminAt = { port: options.adminPort ?? server.admin_port, host: options.host ?? server.admin_host };
  try {
    if (gateway) await listen(gateway, gatewayAt).catch(portInUse('gateway', gatewayAt));
    await admin.listen(adminAt).catch(portInUse('admin', adminAt));
  } catch (err) {
    gateway?.close();
    await admin.close();
    throw err;
  }
  const gatewayBound = threads?.address ?? (gateway?.address() as AddressInfo | undefined);
  return {
    gateway,
    admin,
    gatewayUrl: gatewayBound && urlOf(gatewayBound),
    gatewayBound,
    adminUrl: urlOf(admin.server.address()),
    adminBound: admin.server.address() as AddressInfo,
  };
}

/** A gateway replica's status server, or the admin surfaces, loaded only where they are served. */
async function adminListener(host: AdminHost, surfaces: RoleWork['adminSurfaces']): Promise<AdminListener> {
  if (surfaces === 'status') {
    const server = createStatusServer(host);
    return {
      server,
      listen: (at) => listen(server, at),
      close: () => new Promise((done) => server.close(() => done())),
    };
  }
  const { createAdminServer } = await import('../../admin/server.ts');
  const app = createAdminServer(host);
  return { server: app.server, listen: async (at) => void (await app.listen(at)), close: () => app.close() };
}

function adminHost(
  parts: ServiceParts,
  lifecycle: ConfigLifecycle,
  gateway: GatewayHost,
  options: Pick<StartOptions, 'promptEvents'>,
  threads: GatewayThreads | undefined,
): AdminHost {
  const { metrics, promptVersionEvents } = parts;
  const recorder = options.promptEvents;
  return {
    db: parts.db,
    clock: parts.clock,
    log: parts.log,
    config: () => lifecycle.active.loaded.config,
    modelGroups: () => lifecycle.active.services.modelGroups,
    keys: { refresh: parts.refreshKeys },
    bench: parts.bench,
    providers: parts.providers,
    spend: parts.spend,
    counters: parts.counters,
    // The webhook outbox always records; a recorder passed in (tests) sees the same events in the same transaction.
    promptEvents: recorder
      ? { record: async (tx, events) => (await promptVersionEvents.record(tx, events), recorder.record(tx, events)) }
      : promptVersionEvents,
    health: threads ? () => withThreads(gateway.health(), threads) : gateway.health,
    metricsJson: async () => {
      const state = await metrics.benchState();
      const benchedUntil = Object.fromEntries(
        state.benched.map((b) => [b.deployment, new Date(b.until).toISOString()]),
      );
      const json = await metrics.json({
        deployments: { benched_until: benchedUntil, ...(state.error ? { bench_state_error: state.error } : {}) },
      });
      if (!threads) return json;
      // The main thread's own requests count too when it serves the port beside the large-request thread.
      const own = threads.address ? [] : [await threadMetrics(metrics)];
      return mergedJson(json, [...own, ...(await threads.metrics())]);
    },
    metricsText: async () =>
      threads
        ? mergedPrometheus(metrics, await threads.metrics())
        : { contentType: metrics.registry.contentType, text: await metrics.registry.metrics() },
  };
}

/** The process is ready when the main thread is and every gateway thread runs. */
function withThreads(health: Health, threads: GatewayThreads): Health {
  if (!health.ready || threads.alive) return health;
  return { ok: false, ready: false, reason: 'gateway_thread_stopped' };
}

/**
 * Binds the server to a port, or to a Unix socket at `path` (the large-request thread's, private to the process);
 * `reusePort`: several threads' servers share the port and the kernel spreads connections.
 */
export function listen(server: Server, at: ListenAddress | { path: string }, reusePort = false): Promise<void> {
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen('path' in at ? { path: at.path } : { port: at.port, host: at.host, reusePort }, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
}

/** A URL to reach a listener from this machine (a wildcard address is reached on loopback). */
function urlOf(address: AddressInfo | string | null): string {
  const a = address as AddressInfo;
  const hostname =
    a.address === '0.0.0.0' || a.address === '::'
      ? '127.0.0.1'
      : a.address.includes(':')
        ? `[${a.address}]`
        : a.address;
  return `http://${hostname}:${a.port}`;
}
