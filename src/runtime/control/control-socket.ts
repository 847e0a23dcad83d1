// The control socket `<data_dir>/control.sock`: embedded PGlite can be opened by one process only, so the process
// that has it open (the running service, or a CLI working directly) listens here and runs the store commands of
// others. Binding it is also the lock: a second process finds it answering and does not open the store.
// Protocol: one JSON request line in, one JSON response line out, then the connection ends.
import { chmodSync, mkdirSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Logger } from '../../platform/telemetry/logger.ts';
import type { ControlResponse } from './commands.ts';

export const CONTROL_SOCKET_NAME = 'control.sock';

/** The longest Unix socket path the OS takes (sun_path less its NUL): 107 bytes on Linux, 103 on macOS and the BSDs. */
const MAX_PATH_BYTES = process.platform === 'linux' ? 107 : 103;
const MAX_REQUEST_BYTES = 64 * 1024;

export type SocketPath = { ok: true; path: string } | { ok: false; path: string; reason: string };

export function controlSocketPath(dataDir: string): SocketPath {
  const path = join(dataDir, CONTROL_SOCKET_NAME);
  if (process.platform === 'win32') return { ok: false, path, reason: 'control sockets are not supported on Windows' };
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_PATH_BYTES)
    return { ok: false, path, reason: `the path is ${bytes} bytes, longer than the ${MAX_PATH_BYTES} the OS allows` };
  return { ok: true, path };
}

export type ControlHandler = (request: unknown) => Promise<ControlResponse>;

export interface ControlSocket {
  readonly path: string;
  /** Starts running requests; those that arrived before wait for this. */
  serve(handler: ControlHandler): void;
  /** Refuses new requests, waits for running ones, runs `release` (closing the store), then removes the socket. */
  close(release?: () => Promise<void>): Promise<void>;
}

/** True when a process accepts connections on `path`; false when nothing does (no file, or a stale one). */
export function socketAnswers(path: string): Promise<boolean> {
  return new Promise((done, fail) => {
    const probe = createConnection(path);
    probe.once('connect', () => {
      probe.destroy();
      done(true);
    });
    probe.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') done(false);
      else fail(err);
    });
  });
}

/** Probes of a socket that refuses connections before it is taken for stale, and the wait between them. */
const STALE_PROBES = 4;
const STALE_PROBE_GAP_MS = 25;

/**
 * True when a process accepts connections on `path`. A socket file refusing connections may be stale (its process
 * gone) or just bound by a process that has not called listen() yet (bind and listen are two steps): it counts as
 * stale only when it still refuses after a few probes.
 */
async function socketLive(path: string): Promise<boolean> {
  for (let probe = 1; probe <= STALE_PROBES; probe++) {
    if (await socketAnswers(path)) return true;
    if (probe < STALE_PROBES) await new Promise((r) => setTimeout(r, STALE_PROBE_GAP_MS));
  }
  return false;
}

/** Binds the socket, or returns 'live' when another process holds it. A stale socket (its process gone) is replaced. */
export async function claimControlSocket(path: string): Promise<ControlSocket | 'live'> {
  for (let attempt = 1; ; attempt++) {
    const socket = await listenOn(path).catch((err: NodeJS.ErrnoException) => {
      // ENOENT: another process took the file for stale and removed it between our bind and our chmod; try again.
      if ((err.code !== 'EADDRINUSE' && err.code !== 'ENOENT') || attempt >= 5) throw err;
      return undefined;
    });
    if (socket) return socket;
    if (await socketLive(path)) return 'live';
    try {
      unlinkSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

export class StoreInUseError extends Error {}

/** The running service's socket for its embedded store; fails when another live process already uses data_dir. */
export async function serviceControlSocket(dataDir: string, log: Logger): Promise<ControlSocket | undefined> {
  const where = controlSocketPath(dataDir);
  if (!where.ok) {
    log.warn(
      'no control socket: `svc keys create`, `svc agents add` and `svc migrate` cannot run while this service runs',
      { path: where.path, reason: where.reason },
    );
    return undefined;
  }
  mkdirSync(dataDir, { recursive: true });
  const claimed = await claimControlSocket(where.path);
  if (claimed === 'live')
    throw new StoreInUseError(
      `another svc process is using ${dataDir} (its control socket ${where.path} answers); the embedded store can be opened by one process only`,
    );
  return claimed;
}

async function listenOn(path: string): Promise<ControlSocket> {
  const control = new ControlServer(path);
  await control.listen();
  return control;
}

/** The listening side: takes the first line of each connection as its request and answers it once served. */
class ControlServer implements ControlSocket {
  readonly path: string;
  readonly #server: Server;
  #handler: ControlHandler | undefined;
  #ready: () => void = () => {};
  /** Resolves once a handler is set, or once closing: requests that arrived before wait for it. */
  readonly #served = new Promise<void>((done) => (this.#ready = done));
  #closing = false;
  readonly #running = new Set<Promise<void>>();
  readonly #connections = new Set<Socket>();

  constructor(path: string) {
    this.path = path;
    this.#server = createServer((socket) => this.#accept(socket));
    // The service's listeners keep the process alive; this must not keep a finished CLI or a failed start alive.
    this.#server.unref();
  }

  listen(): Promise<void> {
    const server = this.#server;
    return new Promise((resolveListen, reject) => {
      server.once('error', reject);
      server.listen(this.path, () => {
        server.off('error', reject);
        // Connections fail on their own; a failing listener must not take the process down with it.
        server.on('error', () => {});
        try {
          chmodSync(this.path, 0o600);
        } catch (err) {
          server.close();
          reject(err);
          return;
        }
        resolveListen();
      });
    });
  }

  serve(handler: ControlHandler): void {
    this.#handler = handler;
    this.#ready();
  }

  async close(release?: () => Promise<void>): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#ready();
    await Promise.allSettled([...this.#running]);
    await release?.();
    // Closing the listener removes the socket file (libuv unlinks it), after the store is closed.
    const closed = new Promise<void>((done) => this.#server.close(() => done()));
    for (const c of this.#connections) c.destroy();
    await closed;
  }

  #accept(socket: Socket): void {
    this.#connections.add(socket);
    socket.on('close', () => this.#connections.delete(socket));
    socket.on('error', () => {});
    socket.setEncoding('utf8');
    let buffer = '';
    let taken = false;
    socket.on('data', (chunk: string) => {
      if (taken) return;
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end < 0 && buffer.length <= MAX_REQUEST_BYTES) return;
      taken = true;
      const work = this.#answer(socket, end < 0 ? '' : buffer.slice(0, end)).finally(() => this.#running.delete(work));
      this.#running.add(work);
    });
  }

  async #answer(socket: Socket, line: string): Promise<void> {
    let response: ControlResponse;
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch {
      request = undefined;
    }
    if (request === undefined)
      response = { ok: false, error: 'the control request is not one line of JSON', exitCode: 2 };
    else {
      await this.#served;
      response =
        this.#closing || !this.#handler
          ? { ok: false, error: 'svc is stopping; try again once it has stopped', exitCode: 1 }
          : await this.#handler(request);
    }
    socket.end(`${JSON.stringify(response)}\n`);
  }
}
