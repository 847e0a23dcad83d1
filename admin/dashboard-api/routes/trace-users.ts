// Dashboard trace users (traces.user_id: the end users an application names, not the dashboard's own users): a paged
// list with each user's totals, and one user with totals, traces, sessions, tokens and cost per day, and their latest
// sessions.
import type { FastifyInstance } from 'fastify';
import { withStatementTimeout } from '../../../src/platform/store/database.ts';
import { summarizeSessions } from '../../../src/platform/store/repos/session-summaries.ts';
import {
  listTraceUsers,
  recentSessionsOfUser,
  summarizeTraceUsers,
  traceUserDays,
} from '../../../src/platform/store/repos/trace-users.ts';
import type { AdminContext } from '../../context.ts';
import { countedAheadPagination, PAGING_QUERY_SCHEMA, type PagingQuery } from '../paging.ts';
import { found, projectOf } from '../project-scope.ts';
import { requireSession } from '../session-guard.ts';

/** The user page lists this many of the user's latest sessions; the rest are in the trace list filtered by user. */
const RECENT_SESSIONS = 20;

export function registerDashboardTraceUsers(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireSession(ctx, 'viewer');
  const reads = () => withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);

  app.get<{ Querystring: PagingQuery }>(
    '/projects/:project/trace-users',
    { onRequest, schema: { querystring: PAGING_QUERY_SCHEMA } },
    async (req) => {
      const project = await projectOf(ctx, req);
      const { data, total } = await listTraceUsers(reads(), project.id, req.query);
      return { data, pagination: countedAheadPagination(req.query, total) };
    },
  );

  app.get<{ Params: { project: string; id: string } }>(
    '/projects/:project/trace-users/:id',
    { onRequest },
    async (req) => {
      const project = await projectOf(ctx, req);
      const db = reads();
      const id = req.params.id;
      const summary = found((await summarizeTraceUsers(db, project.id, [id])).get(id), `user '${id}'`);
      const [days, sessionIds] = await Promise.all([
        traceUserDays(db, project.id, id),
        recentSessionsOfUser(db, project.id, id, RECENT_SESSIONS),
      ]);
      const sessions = await summarizeSessions(db, project.id, sessionIds);
      return { ...summary, days, sessions: sessionIds.flatMap((s) => sessions.get(s) ?? []) };
    },
  );
}
