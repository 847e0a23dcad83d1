// GET {base_url}/api/public/sessions and /sessions/{sessionId} (docs/public-api.md "GET /api/public/sessions"): a
// session is a distinct session id of the project's traces, created when its first trace started.
import type { FastifyInstance } from 'fastify';
import querySchema from '../../../schemas/api/public-sessions-query.json' with { type: 'json' };
import { withStatementTimeout } from '../../../src/platform/store/database.ts';
import { foldLinkedCalls } from '../../../src/platform/store/repos/linked-gateway-calls.ts';
import { getSession, listSessions } from '../../../src/platform/store/repos/sessions.ts';
import type { AdminContext } from '../../context.ts';
import { pageMeta, pageOffset } from '../paging.ts';
import { PublicApiError } from '../public-error.ts';
import { publicTrace } from '../representations.ts';
import { projectOf, requireKey } from '../route-access.ts';

interface SessionsQuery {
  page: number;
  limit: number;
  fromTimestamp?: string;
  toTimestamp?: string;
  environment?: string[];
}

export function registerPublicSessions(app: FastifyInstance, ctx: AdminContext): void {
  app.get<{ Querystring: SessionsQuery }>(
    '/sessions',
    { schema: { querystring: querySchema }, onRequest: requireKey(ctx, 'project') },
    async (req) => {
      const q = req.query;
      const db = withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);
      const { data, total } = await listSessions(db, projectOf(req).id, {
        from: q.fromTimestamp,
        to: q.toTimestamp,
        environments: q.environment,
        limit: q.limit,
        offset: pageOffset(q),
      });
      return { data, meta: pageMeta(q, total) };
    },
  );

  app.get<{ Params: { sessionId: string } }>(
    '/sessions/:sessionId',
    { onRequest: requireKey(ctx, 'project') },
    async (req) => {
      const { sessionId } = req.params;
      const db = withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);
      const session = await getSession(db, projectOf(req).id, sessionId);
      if (!session)
        throw new PublicApiError('NotFoundError', `Session ${sessionId} not found within authorized project`);
      const traces = await foldLinkedCalls(db, projectOf(req).id, session.traces);
      return { ...session, traces: traces.map(publicTrace) };
    },
  );
}
