// The CLI's side of the control socket: one request line out, one response line back.
import { createConnection } from 'node:net';
import type { ControlRequest, ControlResponse } from './commands.ts';

/** The response, or 'unavailable' when no process listens on `path` (any more). */
export function sendControlRequest(path: string, request: ControlRequest): Promise<ControlResponse | 'unavailable'> {
  return new Promise((done, fail) => {
    const socket = createConnection(path);
    let connected = false;
    let buffer = '';
    socket.setEncoding('utf8');
    socket.once('connect', () => {
      connected = true;
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on('data', (chunk: string) => {
      buffer += chunk;
    });
    socket.once('end', () => {
      const line = buffer.split('\n', 1)[0];
      try {
        done(JSON.parse(line) as ControlResponse);
      } catch {
        fail(new Error(`the svc process on ${path} closed the connection without an answer`));
      }
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      if (!connected && (err.code === 'ECONNREFUSED' || err.code === 'ENOENT')) done('unavailable');
      else fail(new Error(`control socket ${path}: ${err.message}`));
    });
  });
}
