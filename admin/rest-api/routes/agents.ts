// GET /v1/agents (docs/rest-api.md "GET /v1/agents"): the agents of the key's project, by name and version.
import type { FastifyInstance } from 'fastify';
import { listAgents } from '../../../src/platform/store/repos/agents.ts';
import type { AdminContext } from '../../context.ts';
import { restAgent } from '../representations.ts';
import { projectOf } from '../request-guard.ts';

export function registerAgents(app: FastifyInstance, ctx: AdminContext): void {
  app.get('/agents', async (req) => {
    const agents = await listAgents(ctx.db, projectOf(req).id);
    return { data: agents.map(restAgent) };
  });
}
