// A TCP proxy for outage tests: forwards every connection to a target (by default the test Postgres server) until
// `cut()`, which destroys the open connections and from then on closes new ones as soon as they arrive (as a
// stopped server would), until `restore()`. `stall()` holds the bytes in both directions (a query in flight stays
// in flight) until `restore()` forwards them or `cut()` drops them.
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { POSTGRES_ADMIN_URL } from './store.ts';

export interface TcpProxy {
  readonly host: string;
  readonly port: number;
  /** True between cut() and restore(). */
  readonly isCut: boolean;
  /** Bytes forwarded so far, both directions. */
  readonly bytes: number;
  /** Bytes held by stall(), waiting for restore(). */
  readonly held: number;
  /** Connections forwarded so far (refused ones excluded). */
  readonly forwarded: number;
  /** Connections closed on arrival while cut. */
  readonly refused: number;
  /** Destroys every open connection; new ones are closed on arrival until restore(). */
  cut(): void;
  /** Holds every byte, both directions, on open and new connections, until restore() or cut(). */
  stall(): void;
  restore(): void;
  /** The same URL with its host and port replaced by the proxy's. */
  through(url: string): string;
  close(): Promise<void>;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

/**
 * Starts a proxy on 127.0.0.1 in front of `target` (default: the host and port of the test Postgres), on `port`
 * (default: one the system picks).
 */
export async function startTcpProxy(t: Teardown, target?: { host: string; port: number }, port = 0): Promise<TcpProxy> {
  const pgUrl = new URL(POSTGRES_ADMIN_URL);
  const to = target ?? { host: pgUrl.hostname || '127.0.0.1', port: Number(pgUrl.port || 5432) };
  const open = new Set<Socket>();
  let isCut = false;
  let stalled = false;
  let forwarded = 0;
  let refused = 0;
  let bytes = 0;
  const held: { to: Socket; chunk: Buffer }[] = [];
  const track = (s: Socket) => {
    open.add(s);
    s.on('close', () => open.delete(s));
  };
  const forward = (from: Socket, to: Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (stalled) held.push({ to, chunk });
      else {
        bytes += chunk.length;
        to.write(chunk);
      }
    });
  };
  const server: Server = createServer((client) => {
    client.on('error', () => {});
    if (isCut) {
      refused++;
      client.destroy();
      return;
    }
    forwarded++;
    client.pause();
    const upstream = connect(to.port, to.host);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    upstream.on('connect', () => {
      forward(client, upstream);
      forward(upstream, client);
      client.resume();
    });
    track(client);
    track(upstream);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  const proxy: TcpProxy = {
    host: '127.0.0.1',
    port: bound,
    get isCut() {
      return isCut;
    },
    get bytes() {
      return bytes;
    },
    get held() {
      return held.reduce((n, h) => n + h.chunk.length, 0);
    },
    get forwarded() {
      return forwarded;
    },
    get refused() {
      return refused;
    },
    cut() {
      isCut = true;
      stalled = false;
      held.length = 0;
      for (const s of open) s.destroy();
    },
    stall() {
      stalled = true;
    },
    restore() {
      isCut = false;
      stalled = false;
      for (const h of held.splice(0)) {
        bytes += h.chunk.length;
        if (!h.to.destroyed) h.to.write(h.chunk);
      }
    },
    through(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(bound);
      return u.toString();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
  t.teardown(() => proxy.close());
  return proxy;
}
