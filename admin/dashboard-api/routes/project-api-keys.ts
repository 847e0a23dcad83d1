// The project's API keys (the public API's and the SDKs' Basic-auth pair) in the dashboard's project settings: listed
// for every role (never a hash or a secret), created and revoked by admins and owners. A created key's secret is in the
// creating answer only. Creation and revocation write audit rows as `dashboard:<email>`, with the same actions as the
// CLI and the organization API (`api_key.create`, `api_key.delete`).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addApiKey } from '../../../src/observability/api-keys/add-api-key.ts';
import { revokeApiKey } from '../../../src/observability/api-keys/revoke-api-key.ts';
import { apiKeyBody, listApiKeys } from '../../../src/platform/store/repos/api-keys.ts';
import type { AdminContext } from '../../context.ts';
import { byDashboardUser } from '../dashboard-audit.ts';
import { projectOf } from '../project-scope.ts';
import { DashboardApiError } from '../dashboard-error.ts';
import { requireSession } from '../session-guard.ts';

const CREATE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { note: { type: 'string', maxLength: 200 } },
} as const;

async function listKeys(ctx: AdminContext, req: FastifyRequest) {
  const project = await projectOf(ctx, req);
  const keys = await listApiKeys(ctx.db, { projectId: project.id });
  return { data: keys.map(apiKeyBody) };
}

async function createKey(ctx: AdminContext, req: FastifyRequest<{ Body: { note?: string } }>, reply: FastifyReply) {
  const project = await projectOf(ctx, req);
  const note = req.body?.note?.trim() || undefined;
  const created = await ctx.db.transaction((tx) =>
    addApiKey(
      tx,
      { kind: 'project', organizationId: project.organizationId, projectId: project.id, note, now: ctx.clock.now() },
      byDashboardUser(req),
    ),
  );
  reply.code(201).header('cache-control', 'no-store');
  return { key: apiKeyBody(created), secretKey: created.secretKey };
}

async function revokeKey(ctx: AdminContext, req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) {
  const project = await projectOf(ctx, req);
  const { id } = req.params;
  const revoked = await ctx.db.transaction((tx) => revokeApiKey(tx, project, id, byDashboardUser(req)));
  if (!revoked) throw new DashboardApiError('not_found', `No API key '${id}' in project '${project.id}'`);
  return reply.code(204).send();
}

export function registerDashboardProjectApiKeys(app: FastifyInstance, ctx: AdminContext): void {
  const manage = requireSession(ctx, 'admin');
  app.get('/projects/:project/api-keys', { onRequest: requireSession(ctx, 'viewer') }, (req) => listKeys(ctx, req));
  app.post<{ Body: { note?: string } }>(
    '/projects/:project/api-keys',
    { onRequest: manage, schema: { body: CREATE_SCHEMA } },
    (req, reply) => createKey(ctx, req, reply),
  );
  app.delete<{ Params: { id: string } }>('/projects/:project/api-keys/:id', { onRequest: manage }, (req, reply) =>
    revokeKey(ctx, req, reply),
  );
}
