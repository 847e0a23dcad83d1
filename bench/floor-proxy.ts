// The floor: the least a Node proxy in front of an OpenAI-compatible upstream must do. It reads the request
// body, JSON-parses it (any gateway must look inside), forwards it with undici over keep-alive connections,
// and pipes the upstream's answer back as it arrives (JSON or SSE). No auth, routing, headers or metrics.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';

export interface FloorProxy {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** `upstreamBaseUrl` is the upstream's OpenAI base URL, e.g. http://127.0.0.1:1234/v1. */
export async function startFloorProxy(upstreamBaseUrl: string, port = 0): Promise<FloorProxy> {
  // Same pool settings as the gateway's own dispatcher (src/runtime/service.ts).
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256 });
  const base = new URL(upstreamBaseUrl.replace(/\/+$/, ''));
  const origin = base.origin;
  const path = `${base.pathname}/chat/completions`;
  const upstreamHeaders = { 'content-type': 'application/json', authorization: 'Bearer sk-upstream-bench' };

  const server = createServer({ keepAlive: true }, (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      agent.request({ origin, path, method: 'POST', headers: upstreamHeaders, body: JSON.stringify(body) }).then(
        (up) => {
          const headers: Record<string, string> = {};
          const type = up.headers['content-type'];
          const length = up.headers['content-length'];
          if (typeof type === 'string') headers['content-type'] = type;
          if (typeof length === 'string') headers['content-length'] = length;
          res.writeHead(up.statusCode, headers);
          up.body.on('error', () => res.destroy());
          up.body.pipe(res);
        },
        () => {
          if (!res.headersSent) res.writeHead(502);
          res.end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent.close();
    },
  };
}
