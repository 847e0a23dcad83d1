// The gateway listener: framing checks that need no plugin (route, media type, size, JSON, shape),
// then the plugin pipeline of the configuration active when the request arrived.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { GatewayError } from '../errors/gateway-error.ts';
import { runPipeline } from '../pipeline/run-pipeline.ts';
import { StateStore } from '../pipeline/state.ts';
import type { JsonObject, RequestContext, RouteName } from '../pipeline/types.ts';
import type { ActiveConfig } from '../runtime/active-config.ts';
import type { GatewayMetrics } from '../telemetry/metrics.ts';
import type { Logger } from '../telemetry/logger.ts';
import { writeError, writeJson } from './response-writer.ts';
import { probeResult, type Health } from './probe.ts';
import { isJsonMediaType, readBody } from './read-body.ts';
import { validateRequestBody } from './request-validation.ts';

const ROUTES: Record<string, RouteName> = {
  'POST /v1/chat/completions': 'chat',
  'POST /v1/embeddings': 'embeddings',
  'GET /v1/models': 'models',
};

export interface GatewayHost {
  active(): ActiveConfig;
  readonly draining: boolean;
  /** Health of the process and its backing stores, for /health and /ready. */
  health(): Health;
  readonly metrics: GatewayMetrics;
  readonly log: Logger;
  now(): number;
  requestStarted(active: ActiveConfig): void;
  requestFinished(active: ActiveConfig): void;
}


export function createGatewayServer(host: GatewayHost): Server {
  const server = createServer({ keepAlive: true }, (req, res) => {
    handle(host, req, res).catch((err: unknown) => {
      host.log.error('unhandled gateway listener error', { error: (err as Error).stack });
      if (!res.headersSent) writeJson(res, 500, {}, { error: { message: 'Internal gateway error.', type: 'server_error', param: null, code: null } });
      else res.destroy();
    });
  });
  return server;
}

async function handle(host: GatewayHost, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (host.draining) res.setHeader('connection', 'close');
  if (req.method === 'GET' && (path === '/health' || path === '/ready')) {
    const probe = probeResult(path, host.health());
    return writeJson(res, probe.status, {}, probe.body);
  }
  const id = randomUUID();
  const route = ROUTES[`${req.method} ${path}`];
  if (route === undefined) {
    const code = writeError(undefined, res, new GatewayError('unknown_route', `Unknown route: ${req.method} ${path}`), id, host.log);
    host.metrics.recordRequest('unknown', 404, code, (performance.now() - started) / 1000);
    return;
  }
  const active = host.active();
  host.requestStarted(active);
  try {
    let body: JsonObject | undefined;
    if (route !== 'models') {
      try {
        body = await framedBody(req, route, active.loaded.config.server.max_body_bytes);
      } catch (err) {
        // Stop reading a refused body: the connection closes after the answer.
        if (err instanceof GatewayError && err.code === 'request_too_large') res.setHeader('connection', 'close');
        const code = writeError(undefined, res, err, id, host.log);
        host.metrics.recordRequest(route, res.statusCode, code, (performance.now() - started) / 1000);
        return;
      }
    }
    // Created on first use: most requests never need an abort signal.
    let controller: AbortController | undefined;
    const ctx: RequestContext = {
      id,
      route,
      receivedAt: host.now(),
      headers: req.headers,
      clientIp: req.socket.remoteAddress,
      body,
      stream: body?.stream === true,
      clientWantsUsage: (body?.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true,
      attempts: [],
      responseHeaders: {},
      annotations: {},
      state: new StateStore(),
      get signal() {
        if (!controller) {
          controller = new AbortController();
          if (ctx.clientAborted) controller.abort(new Error('client disconnected'));
        }
        return controller.signal;
      },
      clientAborted: false,
      log: host.log,
    };
    res.on('close', () => {
      if (!res.writableFinished) {
        ctx.clientAborted = true;
        controller?.abort(new Error('client disconnected'));
      }
    });
    const outcome = await runPipeline(active.pipeline, ctx, res);
    host.metrics.recordRequest(route, ctx.status ?? res.statusCode, outcome.code, (performance.now() - started) / 1000);
  } finally {
    host.requestFinished(active);
  }
}

async function framedBody(req: IncomingMessage, route: 'chat' | 'embeddings', limit: number): Promise<JsonObject> {
  if (!isJsonMediaType(req.headers['content-type'])) {
    throw new GatewayError('unsupported_media_type', 'Content-Type must be application/json.');
  }
  const raw = await readBody(req, limit);
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new GatewayError('invalid_json', `Request body is not valid JSON: ${(err as Error).message}`);
  }
  const problem = validateRequestBody(route, body);
  if (problem !== undefined) throw new GatewayError('invalid_request', `Invalid request: ${problem}.`);
  return body as JsonObject;
}
