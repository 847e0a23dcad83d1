// Dashboard agents: list, suspend and resume. A suspended agent's keys answer `key_blocked` at the gateway (the key
// cache reads agent status, stored-key-store.ts); the change is audited and applied to this process at once.
import type { FastifyInstance } from 'fastify';
import { changeAgentStatus } from '../../../src/observability/agents/agent-changes.ts';
import { listAgents, type Agent } from '../../../src/platform/store/repos/agents.ts';
import type { AdminContext } from '../../context.ts';
import { restAgent } from '../../rest-api/representations.ts';
import { byDashboardUser } from '../dashboard-audit.ts';
import { refreshKeyCache } from '../key-cache.ts';
import { projectOf } from '../project-scope.ts';
import { DashboardApiError } from '../dashboard-error.ts';
import { requireSession } from '../session-guard.ts';

type IdParams = { project: string; id: string };

/** Agents declared in gateway.yaml take the file's status again when it is loaded; the view says which those are. */
const agentView = (a: Agent, declared: ReadonlySet<string>) => ({
  ...restAgent(a),
  declaredInConfig: declared.has(a.id),
});

export function registerDashboardAgents(app: FastifyInstance, ctx: AdminContext): void {
  const declared = () => new Set(ctx.config().agents.map((a) => a.id));

  app.get('/projects/:project/agents', { onRequest: requireSession(ctx, 'viewer') }, async (req) => {
    const project = await projectOf(ctx, req);
    const d = declared();
    return { data: (await listAgents(ctx.db, project.id)).map((a) => agentView(a, d)) };
  });

  for (const [verb, status] of [
    ['suspend', 'suspended'],
    ['resume', 'active'],
  ] as const) {
    app.post<{ Params: IdParams }>(
      `/projects/:project/agents/:id/${verb}`,
      { onRequest: requireSession(ctx, 'member') },
      async (req) => {
        const project = await projectOf(ctx, req);
        const agent = await changeAgentStatus(ctx.db, project, req.params.id, status, byDashboardUser(req));
        if (!agent) throw new DashboardApiError('not_found', `No agent '${req.params.id}'`);
        await refreshKeyCache(ctx);
        return { agent: agentView(agent, declared()) };
      },
    );
  }
}
