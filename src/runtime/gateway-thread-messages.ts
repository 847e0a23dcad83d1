// What the main thread and its gateway threads say to each other (gateway-threads.ts starts them, gateway-thread.ts
// is each one's entry): requests carry an id the answer repeats.
import type { AddressInfo } from 'node:net';
import type { MessagePort } from 'node:worker_threads';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { ConfigSource } from './config-lifecycle.ts';
import type { Env } from '../platform/config/interpolate.ts';
import type { LogMessage } from '../platform/telemetry/forwarding-logger.ts';
import type { Spend } from '../plugin-api/services.ts';

export interface GatewayThreadData {
  index: number;
  config: ConfigSource;
  env: Env;
  /**
   * The first thread may bind port 0; the others bind the port it got. The large-request thread listens on a socket
   * of its own (a path), which only this process reaches.
   */
  listen: { port: number; host: string } | { path: string };
  /** The large-request thread's socket, where a thread on the port sends requests with large bodies. */
  largeRequests?: string;
  store: { kind: 'pglite'; port: MessagePort } | { kind: 'postgres'; url: string };
  /** A port the trace writer's thread takes traces on. */
  traces: MessagePort;
  /** The in-process counters every thread shares; absent when they live in Redis. */
  counters?: SharedArrayBuffer;
  /** The store is prepared already: key polling starts at once. */
  prepared: boolean;
}

/** One gateway thread's numbers: its prom-client registry as JSON, and what /metrics' JSON sums or merges. */
export interface ThreadMetrics {
  prometheus: MetricObjectWithValues<MetricValue<string>>[];
  json: Record<string, unknown>;
  /** The durations in its windows of recent requests (ms), for percentiles over every thread. */
  latencyMs: number[];
  overheadMs: number[];
  /** The thread's JavaScript heap as V8 holds it (total heap size), bytes. */
  heapBytes: number;
}

export type ThreadRequest =
  | { type: 'reload' }
  /** The store is prepared: read its keys and poll them; answered once they were read. */
  | { type: 'prepared' }
  | { type: 'refresh-keys' }
  | { type: 'metrics' }
  /** Stop taking requests, finish those in flight up to the deadline, hand over every trace and spend, close. */
  | { type: 'drain'; deadlineMs: number };

export type ToGatewayThread =
  | (ThreadRequest & { id: number })
  | { type: 'spent'; id: number; nanoUsd?: number; error?: string; unavailable?: boolean }
  | { type: 'value'; id: number; value: Uint8Array | null; error?: string };

export type FromGatewayThread =
  | LogMessage
  /** The port's address, or the large-request thread's socket path. */
  | { type: 'listening'; address: AddressInfo | string }
  | { type: 'done'; id: number; error?: string; metrics?: ThreadMetrics }
  | { type: 'spend'; spends: Spend[] }
  | { type: 'spent'; id: number; budgetId: string; periodId: string }
  /** `services.processValues(name, maxBytes)` asked of the main thread, which holds the stores. */
  | { type: 'value-get'; id: number; name: string; maxBytes: number; key: string }
  | { type: 'value-set'; id: number; name: string; maxBytes: number; key: string; value: Uint8Array; ttlMs: number };
