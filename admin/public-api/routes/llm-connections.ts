// LLM connections of the public API (docs/public-api.md "LLM connections — /api/public/llm-connections"): GET
// /llm-connections (paged), PUT /llm-connections (upsert by provider: 201 created, 200 replaced), DELETE
// /llm-connections/{id}. Secrets and extra header values are stored sealed and never answered: only `displaySecretKey`
// and `extraHeaderKeys`.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pageQuerySchema from '../../../schemas/api/public-page-query.json' with { type: 'json' };
import upsertSchema from '../../../schemas/api/public-llm-connection-upsert.json' with { type: 'json' };
import { connectionRowOf, type ConnectionBody } from '../../../src/observability/llm-connections/connection-input.ts';
import { connectionSecretsBox } from '../../../src/platform/secrets/connection-secrets-key.ts';
import {
  deleteLlmConnection,
  listLlmConnections,
  upsertLlmConnection,
  type StoredLlmConnection,
} from '../../../src/platform/store/repos/llm-connections.ts';
import type { AdminContext } from '../../context.ts';
import { pageMeta, pageOffset, type PageQuery } from '../paging.ts';
import { invalidRequestData, PublicApiError } from '../public-error.ts';
import { projectOf, requireKey } from '../route-access.ts';

export const publicLlmConnection = (c: StoredLlmConnection) => ({
  id: c.id,
  provider: c.provider,
  adapter: c.adapter,
  displaySecretKey: c.displaySecretKey,
  baseURL: c.baseUrl,
  customModels: c.customModels,
  withDefaultModels: c.withDefaultModels,
  extraHeaderKeys: c.extraHeaderKeys,
  config: c.config,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

export function registerPublicLlmConnections(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireKey(ctx, 'project');

  app.get<{ Querystring: PageQuery }>(
    '/llm-connections',
    { schema: { querystring: pageQuerySchema }, onRequest },
    async (req) => {
      const { data, total } = await listLlmConnections(ctx.db, projectOf(req).id, {
        limit: req.query.limit,
        offset: pageOffset(req.query),
      });
      return { data: data.map(publicLlmConnection), meta: pageMeta(req.query, total) };
    },
  );

  app.put<{ Body: ConnectionBody }>(
    '/llm-connections',
    { schema: { body: upsertSchema }, onRequest },
    async (req, reply) => {
      const project = projectOf(req);
      const box = await connectionSecretsBox(ctx.db, ctx.config().store.encryption_key);
      const checked = connectionRowOf(project.id, randomUUID(), req.body, box);
      if ('issues' in checked) throw invalidRequestData(checked.issues);
      const { connection, created } = await upsertLlmConnection(ctx.db, checked.row);
      return reply.code(created ? 201 : 200).send(publicLlmConnection(connection));
    },
  );

  app.delete<{ Params: { id: string } }>('/llm-connections/:id', { onRequest }, async (req) => {
    if (!(await deleteLlmConnection(ctx.db, projectOf(req).id, req.params.id))) {
      throw new PublicApiError('NotFoundError', `LLM connection ${req.params.id} not found within authorized project`);
    }
    return { message: 'LLM connection successfully deleted' };
  });
}
