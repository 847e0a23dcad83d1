// The gateway listener: the route, the plugins' head hooks (auth refuses a missing or unknown key before any body is
// read), framing checks that need no plugin (media type, size, JSON, shape), then the plugin pipeline of the
// configuration active when the request arrived.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { timeOrderedUuid } from './request-id.ts';
import { nodeHttp } from '../../platform/node-http.ts';
import type { GatewayConfig } from '../../platform/config/types.ts';
import { GatewayError, openAIErrorBody } from '../../platform/errors/gateway-error.ts';
import { createRequestContext } from '../pipeline/context.ts';
import { runPipeline, runRequestHead } from '../pipeline/run-pipeline.ts';
import type { RequestContext, RouteName } from '../../plugin-api/contract.ts';
import type { JsonObject } from '../../platform/openai/wire-types.ts';
import type { ActiveConfig } from './active-config.ts';
import type { GatewayMetrics } from '../../platform/telemetry/metrics.ts';
import type { Logger } from '../../platform/telemetry/logger.ts';
import { exceedsJsonDepth, tooDeepMessage } from '../../platform/validation/json-depth.ts';
import { writeJson, writeRefusal } from '../stream/response-writer.ts';
import { describeParseRefusal, rawJsonResponse, type ClientError } from './parse-refusal.ts';
import { probeResult, type Health } from './probe.ts';
import { ClientAbortedError, declaredLength, isJsonMediaType, readBody } from './read-body.ts';
import { passedClientAddress, passThrough } from './large-request-pass.ts';
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
  /** The large-request thread's socket: requests with a body of server.large_request_bytes or more go there. */
  readonly largeRequests?: string;
  /** This listener is the large-request thread's: its requests were passed through, with their client's address. */
  readonly passedThrough?: boolean;
}

/** What the listener knows of a connection's current request, for answering a request timeout on it. */
interface Exchange {
  id: string;
  res: ServerResponse;
  timedOut: boolean;
}

/**
 * The gateway listener with timeouts and a connection cap suited to a gateway (gateway.yaml `server:`): a client
 * gets request_timeout_ms to send its whole request (headers within headers_timeout_ms), then 408 and the connection
 * closes. Node applies the request timeout to receiving the request only, never to the response, so long streams
 * are not cut. Connections beyond max_connections are closed as they arrive.
 */
export function createGatewayServer(
  host: GatewayHost,
  limits: Pick<GatewayConfig['server'], 'request_timeout_ms' | 'headers_timeout_ms' | 'max_connections'>,
): Server {
  const exchanges = new WeakMap<Socket, Exchange>();
  const server = nodeHttp.createServer(
    {
      keepAlive: true,
      requestTimeout: limits.request_timeout_ms,
      headersTimeout: Math.min(limits.headers_timeout_ms, limits.request_timeout_ms),
      // How often Node looks for requests past their timeout (30 s by default, which would stretch a short timeout).
      connectionsCheckingInterval: Math.min(1_000, limits.request_timeout_ms / 2),
    },
    (req, res) => {
      handle(host, req, res, exchanges).catch((err: unknown) => {
        host.log.error('unhandled gateway listener error', { error: (err as Error).stack });
        if (!res.headersSent)
          writeJson(
            res,
            500,
            {},
            { error: { message: 'Internal gateway error.', type: 'server_error', param: null, code: null } },
          );
        else res.destroy();
      });
    },
  );
  server.maxConnections = limits.max_connections;
  server.on('clientError', (err: ClientError, socket: Socket) => {
    const exchange = exchanges.get(socket);
    // Answer only where nothing of a response went out yet (what Node does without this listener).
    if (socket.writable && !exchange?.res.headersSent) {
      const refusal = describeParseRefusal(err);
      if (refusal.kind === 'request_timeout') {
        if (exchange) exchange.timedOut = true;
        refusal.message = `The request was not received within ${limits.request_timeout_ms} ms (server.request_timeout_ms).`;
      } else {
        // Counted as a request of the route its request line names, like the refusals after parsing.
        const route =
          refusal.path === undefined ? undefined : ROUTES[`${refusal.method} ${refusal.path.split('?', 1)[0]}`];
        host.metrics.recordRequest(route ?? 'unknown', refusal.status, refusal.kind, 0, undefined);
      }
      const body = openAIErrorBody(refusal.status, refusal.kind, refusal.message);
      // A request refused before it was read has no id yet: it gets one, for the client to quote.
      const id = exchange?.id ?? timeOrderedUuid();
      socket.write(rawJsonResponse(refusal.status, body, { 'x-svc-request-id': id }));
    }
    socket.destroy();
  });
  return server;
}

async function handle(
  host: GatewayHost,
  req: IncomingMessage,
  res: ServerResponse,
  exchanges: WeakMap<Socket, Exchange>,
): Promise<void> {
  const started = performance.now();
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (host.draining) res.setHeader('connection', 'close');
  if (req.method === 'GET' && (path === '/health' || path === '/ready')) {
    const probe = probeResult(path, host.health());
    return writeJson(res, probe.status, {}, probe.body);
  }
  // Time-ordered (UUIDv7): the id is also the trace id, and ids that arrive in order keep the trace tables' primary-key
  // inserts at the end of the index instead of scattered over it (random ids made each embedded-store insert dearer
  // as the store grew).
  const id = timeOrderedUuid();
  const exchange: Exchange = { id, res, timedOut: false };
  exchanges.set(req.socket, exchange);
  // A keep-alive connection's next request is a new exchange; until it starts, a timeout answers without an id.
  res.once('finish', () => exchanges.get(req.socket) === exchange && exchanges.delete(req.socket));
  const route = ROUTES[`${req.method} ${path}`];
  if (route === undefined) {
    const refusal = new GatewayError('unknown_route', `Unknown route: ${req.method} ${path}`);
    return refuseBeforePipeline(host, res, 'unknown', refusal, id, started, started);
  }
  if (host.draining) {
    // The listener stays open while in-flight requests finish, so probes can say so; new work goes elsewhere
    // (docs/decisions.md "Draining"). The connection closes after this answer.
    const refusal = new GatewayError(
      'gateway_config_stale',
      'The gateway is shutting down and takes no new requests. Retry shortly; another replica will answer.',
    );
    return refuseBeforePipeline(host, res, route, refusal, id, started, started);
  }
  const clientIp = host.passedThrough ? passedClientAddress(req.headers) : req.socket.remoteAddress;
  const active = host.active();
  host.requestStarted(active);
  try {
    // Plugins' head hooks (auth: a missing or unknown key) refuse before the body is read or parsed, so a flood of
    // wrong keys costs little; Node discards an unread body once the answer is sent, and keep-alive goes on, unless
    // that body is one the gateway would not read (see unboundedBody).
    if (active.pipeline.onRequestHead.length > 0) {
      try {
        await runRequestHead(active.pipeline, { id, route, headers: req.headers, clientIp });
      } catch (err) {
        if (unboundedBody(req, active.loaded.config.server.max_body_bytes)) res.setHeader('connection', 'close');
        return refuseBeforePipeline(host, res, route, err, id, started, started);
      }
    }
    if (host.largeRequests !== undefined && isLarge(req, active.loaded.config.server)) {
      try {
        return await passThrough(req, res, host.largeRequests);
      } catch (err) {
        return refuseBeforePipeline(host, res, route, err, id, started, started);
      }
    }
    let body: JsonObject | undefined;
    let bodyBytes = 0;
    // The overhead counts from the request's last byte: the client's upload time is not the gateway's.
    let overheadFrom = started;
    if (route !== 'models') {
      try {
        const raw = await receiveBody(req, active.loaded.config.server.max_body_bytes);
        overheadFrom = performance.now();
        body = parseBody(raw, route);
        bodyBytes = raw.length;
      } catch (err) {
        return bodyNotTaken(host, res, exchange, route, err, started, overheadFrom);
      }
    }
    const ctx = requestContext(host, req, res, id, route, { body, bodyBytes, clientIp }, overheadFrom);
    const outcome = await runPipeline(active.pipeline, ctx, res);
    const seconds = (performance.now() - started) / 1000;
    host.metrics.recordRequest(route, ctx.status ?? res.statusCode, outcome.code, seconds, ctx.overheadMs);
    if (ctx.providerUsageFault) host.metrics.recordProviderUsageFault(ctx.providerUsageFault);
  } finally {
    host.requestFinished(active);
  }
}

/** The request's context for the pipeline; it learns the client left when the response closes before its end. */
function requestContext(
  host: GatewayHost,
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
  route: RouteName,
  { body, bodyBytes, clientIp }: { body: JsonObject | undefined; bodyBytes: number; clientIp: string | undefined },
  overheadFrom: number,
): RequestContext {
  const { ctx, leave } = createRequestContext({
    id,
    route,
    receivedAt: host.now(),
    overheadFrom,
    headers: req.headers,
    clientIp,
    body,
    bodyBytes,
    log: host.log,
  });
  res.on('close', () => {
    if (!res.writableFinished) leave();
  });
  return ctx;
}

/** Answers a request whose body was not taken: nobody to answer when the client left, else the coded refusal. */
function bodyNotTaken(
  host: GatewayHost,
  res: ServerResponse,
  exchange: Exchange,
  route: 'chat' | 'embeddings',
  err: unknown,
  started: number,
  overheadFrom: number,
): void {
  if (err instanceof ClientAbortedError) {
    // Expected: the client left (or was too slow); there is nobody to answer.
    const [status, code] = exchange.timedOut ? [408, 'request_timeout'] : [499, null];
    if (!exchange.timedOut) host.metrics.abortedUploads.inc({ route });
    host.log.debug(
      exchange.timedOut
        ? 'request body not received within server.request_timeout_ms'
        : 'client closed the connection before sending the whole body',
      { requestId: exchange.id, route, error: err.message },
    );
    host.metrics.recordRequest(route, status, code, (performance.now() - started) / 1000, undefined);
    return;
  }
  // Stop reading a refused body: the connection closes after the answer.
  if (err instanceof GatewayError && err.code === 'request_too_large') res.setHeader('connection', 'close');
  refuseBeforePipeline(host, res, route, err, exchange.id, started, overheadFrom);
}

/** A refusal before the pipeline (no request context), written and counted; its overhead is from `overheadFrom`. */
function refuseBeforePipeline(
  host: GatewayHost,
  res: ServerResponse,
  route: RouteName | 'unknown',
  err: unknown,
  id: string,
  started: number,
  overheadFrom: number,
): void {
  const overheadMs = performance.now() - overheadFrom;
  const code = writeRefusal(res, err, id, host.log, overheadMs);
  host.metrics.recordRequest(route, res.statusCode, code, (performance.now() - started) / 1000, overheadMs);
}

/**
 * A body still arriving that the gateway would not read to its end: declared over `max_body_bytes`, or chunked (no
 * declared length). Refused before it is read, the connection closes after the answer rather than reading such a
 * body on (up to `request_timeout_ms`) only to keep the connection.
 */
function unboundedBody(req: IncomingMessage, limit: number): boolean {
  if (req.complete) return false;
  const declared = declaredLength(req);
  return declared === undefined ? req.headers['transfer-encoding'] !== undefined : declared > limit;
}

/**
 * The request declares a body of at least `large_request_bytes` (0: none is large), and not over the limit: a body
 * over it is refused here, without passing it on.
 */
function isLarge(
  req: IncomingMessage,
  { large_request_bytes: large, max_body_bytes: limit }: GatewayConfig['server'],
): boolean {
  const declared = declaredLength(req) ?? 0;
  return large > 0 && declared >= large && declared <= limit;
}

/** The whole body of a request declared as JSON, at most `limit` bytes. */
async function receiveBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (!isJsonMediaType(req.headers['content-type'])) {
    throw new GatewayError('unsupported_media_type', 'Content-Type must be application/json.');
  }
  return readBody(req, limit);
}

/** The body as a JSON object of the route's shape. */
function parseBody(raw: Buffer, route: 'chat' | 'embeddings'): JsonObject {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new GatewayError('invalid_json', `Request body is not valid JSON: ${(err as Error).message}`);
  }
  if (exceedsJsonDepth(body))
    throw new GatewayError('invalid_request', `Invalid request: ${tooDeepMessage('the body')}`);
  const problem = validateRequestBody(route, body);
  if (problem !== undefined) throw new GatewayError('invalid_request', `Invalid request: ${problem}.`);
  return body as JsonObject;
}
