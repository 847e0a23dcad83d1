// The one place a request's context is built: by the gateway listener and by the plugin-level tests alike.
import type { IncomingHttpHeaders } from 'node:http';
import type { JsonObject } from '../../platform/openai/wire-types.ts';
import type { Logger } from '../../platform/telemetry/logger.ts';
import { memoizedEstimate } from './admission-estimate.ts';
import { consumedBy } from './consumed.ts';
import { StateStore } from '../../plugin-api/state.ts';
import type { RequestContext, RouteName } from '../../plugin-api/contract.ts';

/** What is known of a request when its body is in hand. */
export interface RequestArrival {
  id: string;
  route: RouteName;
  /** Epoch milliseconds. */
  receivedAt: number;
  /** `performance.now()` when the body was received. */
  overheadFrom: number;
  headers: IncomingHttpHeaders;
  clientIp: string | undefined;
  /** Parsed and shape-validated; undefined for GET /v1/models. */
  body: JsonObject | undefined;
  /** The body's size as received; 0 when not given. */
  bodyBytes?: number;
  log: Logger;
}

export interface CreatedContext {
  ctx: RequestContext;
  /** The client went away: `clientAborted` is set and `signal` aborts. */
  leave(): void;
}

export function createRequestContext(arrival: RequestArrival): CreatedContext {
  const { route, body } = arrival;
  // Created on first use: most requests never need an abort signal.
  let controller: AbortController | undefined;
  const ctx: RequestContext = {
    id: arrival.id,
    route,
    receivedAt: arrival.receivedAt,
    overheadFrom: arrival.overheadFrom,
    providerMs: 0,
    headers: arrival.headers,
    clientIp: arrival.clientIp,
    body,
    bodyBytes: arrival.bodyBytes ?? 0,
    // Streaming does not apply to embeddings: the flag is ignored there (docs/decisions.md, Embeddings and stream).
    stream: route === 'chat' && body?.stream === true,
    clientWantsUsage: (body?.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true,
    estimate: memoizedEstimate(route, body),
    consumed: () => consumedBy(ctx),
    attempts: [],
    responseHeaders: {},
    annotations: {},
    redactions: [],
    state: new StateStore(),
    get signal() {
      if (!controller) {
        controller = new AbortController();
        if (ctx.clientAborted) controller.abort(new Error('client disconnected'));
      }
      return controller.signal;
    },
    clientAborted: false,
    log: arrival.log,
  };
  const leave = () => {
    ctx.clientAborted = true;
    controller?.abort(new Error('client disconnected'));
  };
  return { ctx, leave };
}
