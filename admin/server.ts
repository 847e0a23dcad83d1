// The admin listener: operational endpoints, the REST API ({base_url}/v1), the public API ({base_url}/api/public) and
// the dashboard's data routes (/dashboard/api). A gateway replica (`svc start --role gateway`) never loads it: its
// admin port is a status port (admin/status-server.ts).
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { probeResult, type ProbePath } from '../src/gateway/server/probe.ts';
import { exceedsJsonDepth, JSON_TOO_DEEP, tooDeepMessage } from '../src/platform/validation/json-depth.ts';
import type { GatewayHost } from '../src/gateway/server/gateway-server.ts';
import { adminClientErrorHandler } from './parse-refusal-answer.ts';
import { adminErrorHandler, adminNotFoundHandler, undecodablePath } from './admin-errors.ts';
import type { AdminContext } from './context.ts';
import { DashboardApiError } from './dashboard-api/dashboard-error.ts';
import { PublicApiError } from './public-api/public-error.ts';
import { requestIdFor } from './rest-api/request-id.ts';
import { registerAdminSurfaces } from './surfaces.ts';

export interface AdminHost extends Pick<GatewayHost, 'health'>, AdminContext {
  metricsJson(): Promise<Record<string, unknown>>;
  metricsText(): Promise<{ contentType: string; text: string }>;
}

export function createAdminServer(host: AdminHost): FastifyInstance {
  // 4.5 MB bodies on every admin route but the public API's intake routes, which set their own (intake-limits.ts).
  const app = Fastify({
    logger: false,
    bodyLimit: 4_718_592,
    // A prompt name (≤ 255 characters, Langfuse's limit) is one path parameter, percent-encoded: up to 12
    // characters each (4-byte UTF-8); Fastify's default 100 would turn long names into 404s.
    routerOptions: { maxParamLength: 4096 },
    // Requests Node's HTTP parser refuses (headers too large, control characters in a header) answer in the envelope
    // of the surface their request line names, not Fastify's default body.
    clientErrorHandler: adminClientErrorHandler,
    // Requests Fastify refuses before routing (a malformed percent-escape in the path) still answer in the
    // envelope of the surface they were meant for.
    frameworkErrors(err, req, rawReply) {
      const reply = rawReply as unknown as FastifyReply;
      const url = req.url ?? '';
      if (url.startsWith('/v1/') || url === '/v1') {
        const e = undecodablePath(err);
        void reply.code(e.status).header('x-request-id', requestIdFor(req.headers['x-request-id'])).send(e.body());
      } else if (url.startsWith('/api/public')) {
        const e = new PublicApiError('InvalidRequestError', `The request path cannot be decoded: ${err.message}.`);
        void reply.code(e.status).send(e.body);
      } else if (url.startsWith('/dashboard/api')) {
        void reply
          .code(400)
          .send(new DashboardApiError('invalid_request', `The request path cannot be decoded: ${err.message}.`).body());
      } else {
        const e = undecodablePath(err);
        void reply.code(e.status).send(e.body());
      }
    },
  });
  app.setNotFoundHandler(adminNotFoundHandler);
  app.setErrorHandler(adminErrorHandler(host.log));
  // JSON bodies of every surface are refused past the nesting limit as they are parsed, before any route walks them;
  // each surface's error handler answers the 400 in its own envelope.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    parseJson(req, body as string, (err: Error | null, value?: unknown) => {
      if (err) done(err, undefined);
      else if (exceedsJsonDepth(value))
        done(
          Object.assign(new Error(tooDeepMessage('The request body')), { statusCode: 400, code: JSON_TOO_DEEP }),
          undefined,
        );
      else done(null, value);
    });
  });
  const probe = (path: ProbePath) => async (_req: unknown, reply: FastifyReply) => {
    const result = probeResult(path, host.health());
    reply.code(result.status);
    return result.body;
  };
  app.get('/health', probe('/health'));
  app.get('/ready', probe('/ready'));
  app.get<{ Querystring: { format?: string } }>('/metrics', async (req, reply) => {
    if (req.query.format === 'prometheus') {
      const { contentType, text } = await host.metricsText();
      reply.header('content-type', contentType);
      return text;
    }
    return host.metricsJson();
  });
  registerAdminSurfaces(app, host);
  return app;
}
