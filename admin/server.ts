// The admin listener: operational endpoints now; the REST API, public API and dashboard join it later.
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { probeResult, type ProbePath } from '../src/server/probe.ts';
import type { GatewayHost } from '../src/server/gateway-server.ts';

export interface AdminHost extends Pick<GatewayHost, 'health'> {
  metricsJson(): Promise<Record<string, unknown>>;
  metricsText(): Promise<{ contentType: string; text: string }>;
}

export function createAdminServer(host: AdminHost): FastifyInstance {
  const app = Fastify({ logger: false });
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
  return app;
}
