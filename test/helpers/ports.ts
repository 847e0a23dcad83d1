// TCP ports for tests that start the service as a process: one the system has just handed out, and whether a port can
// be bound again (its last holder has let it go).
import { createServer } from 'node:net';

/** A port the system chose as free on 127.0.0.1 (released again before this resolves). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

export function portIsFree(port: number, host: string): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, host, () => server.close(() => done(true)));
  });
}
