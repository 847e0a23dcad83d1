// The admin listener: operational endpoints now; the REST API, public API and dashboard join it later.
import Fastify, { type FastifyInstance } from 'fastify';
import type { GatewayHost } from '../src/server/gateway-server.ts';

export interface AdminHost extends Pick<GatewayHost, 'health'> {
  metricsJson(): Promise<Record<string, unknown>>;
  metricsText(): Promise<{ contentType: string; text: string }>;
}

export function createAdminServer(host: AdminHost): FastifyInstance {
  const app = Fastify({ logger: false });
  const probe = (path: '/health' | '/ready') => async (_req: unknown, reply: import('fastify').FastifyReply) => {
    const h = host.health();
    const ok = path === '/health' ? h.ok : h.ready;
    reply.code(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'unavailable', ...(ok || !h.reason ? {} : { reason: h.reason }) };
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
  return app;
}
