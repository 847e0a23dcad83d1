// A request with a large body, passed through to the large-request thread (runtime/gateway-threads.ts) over its
// private socket and its answer passed back, byte for byte and as they come: the thread that took the request only
// relays chunks, each a few microseconds of work, while reading, parsing and forwarding the body happen there.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { GatewayError } from '../../platform/errors/gateway-error.ts';
import { nodeHttp } from '../../platform/node-http.ts';

/** The client's address as the thread that took the request saw it; only the large-request thread's socket reads it. */
export const CLIENT_ADDRESS_HEADER = 'x-svc-client-address';

/** Headers that describe one connection, not the message (RFC 9110 7.6.1), and `expect`, which the first hop answered. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
]);

const endToEnd = (headers: IncomingHttpHeaders): IncomingHttpHeaders => {
  const out: IncomingHttpHeaders = {};
  for (const name in headers) if (!HOP_BY_HOP.has(name)) out[name] = headers[name];
  return out;
};

/** Connections to the large-request thread's socket, kept open between requests. */
const agent = new nodeHttp.Agent({ keepAlive: true });

/**
 * Passes the request through to the server listening at `socketPath` and its answer back. Resolves when the answer
 * ended or either side went away; a failure before the answer started is thrown as a GatewayError to answer with.
 */
export function passThrough(req: IncomingMessage, res: ServerResponse, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const headers = { ...endToEnd(req.headers), [CLIENT_ADDRESS_HEADER]: req.socket.remoteAddress ?? '' };
    const inner = nodeHttp.request({ socketPath, method: req.method, path: req.url, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
      // The client leaving ends the answer's relay, and the connection to the thread with it: it sees the client go.
      pipeline(answer, res, () => resolve());
    });
    inner.on('error', (err) => {
      // Once the answer started, or when the client left, there is nobody to tell.
      if (res.headersSent || req.socket.destroyed) return resolve();
      reject(
        new GatewayError('internal_error', 'The gateway could not pass the request to its large-request thread.', {
          cause: err,
        }),
      );
    });
    // A client that leaves mid-upload (or whose upload times out) ends the relay to the thread too.
    pipeline(req, inner, (err) => {
      if (err) inner.destroy(err);
    });
    res.on('close', () => {
      if (!res.writableFinished) inner.destroy();
      resolve();
    });
  });
}

/** The client's address passed through with the request (the socket's own is this process's). */
export function passedClientAddress(headers: IncomingHttpHeaders): string | undefined {
  const value = headers[CLIENT_ADDRESS_HEADER];
  delete headers[CLIENT_ADDRESS_HEADER];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
