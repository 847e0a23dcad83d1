// A gateway replica's admin port (`svc start --role gateway`): /health, /ready and /metrics only, as a status port for
// its load balancer and Prometheus. Served by Node's HTTP server rather than the admin listener's Fastify app, so a
// gateway replica never loads Fastify and the admin surfaces (docs/operations.md "Node flags and memory"); its answers
// are the admin port's own: the same probe bodies, the REST envelope for a path it does not serve or a failure.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { nodeHttp } from '../src/platform/node-http.ts';
import { probeResult } from '../src/gateway/server/probe.ts';
import { adminClientErrorHandler } from './parse-refusal-answer.ts';
import { RestApiError } from './rest-api/rest-error.ts';
import type { AdminHost } from './server.ts';

export type StatusHost = Pick<AdminHost, 'health' | 'metricsJson' | 'metricsText' | 'log'>;

const SERVED = '/health, /ready and /metrics only (this process runs with --role gateway)';

export function createStatusServer(host: StatusHost): Server {
  const server = nodeHttp.createServer((req, res) => {
    answer(host, req, res).catch((err: Error) => {
      const errorId = randomUUID();
      host.log.error('admin request failed', {
        errorId,
        method: req.method,
        url: req.url,
        error: err.message,
        stack: err.stack,
      });
      const e = new RestApiError('internal_error', `Internal server error (error id ${errorId}).`, { errorId });
      if (!res.headersSent) send(res, e.status, e.body());
      else res.destroy();
    });
  });
  server.on('clientError', adminClientErrorHandler);
  return server;
}

async function answer(host: StatusHost, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const read = req.method === 'GET' || req.method === 'HEAD';
  if (read && (path === '/health' || path === '/ready')) {
    const probe = probeResult(path, host.health());
    return send(res, probe.status, probe.body);
  }
  if (read && path === '/metrics') {
    if (new URLSearchParams(q === -1 ? '' : url.slice(q + 1)).get('format') === 'prometheus') {
      const { contentType, text } = await host.metricsText();
      return send(res, 200, text, contentType);
    }
    return send(res, 200, await host.metricsJson());
  }
  const method = req.method ?? 'GET';
  const e = new RestApiError('not_found', `No admin route ${method} ${path}. The admin port serves ${SERVED}.`, {
    method,
    path,
  });
  send(res, e.status, e.body());
}

/** A JSON body, or `body` as it is with its own content type (Node sends HEAD the headers only). */
function send(res: ServerResponse, status: number, body: unknown, contentType?: string): void {
  const text = contentType ? (body as string) : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': contentType ?? 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
