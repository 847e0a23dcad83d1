// Dashboard sessions (traces sharing a session id): a paged list with each session's totals, and one session with its
// traces in order, their input and output (the conversation), its totals and the gateway keys its calls went through.
import type { FastifyInstance } from 'fastify';
import { withStatementTimeout } from '../../../src/platform/store/database.ts';
import { listSessionSummaries } from '../../../src/platform/store/repos/session-summaries.ts';
import { getSession } from '../../../src/platform/store/repos/sessions.ts';
import type { StoredTrace } from '../../../src/platform/store/repos/traces.ts';
import type { AdminContext } from '../../context.ts';
import { countedAheadPagination, PAGING_QUERY_SCHEMA, type PagingQuery } from '../paging.ts';
import { found, projectOf } from '../project-scope.ts';
import { requireSession } from '../session-guard.ts';

interface ListQuery extends PagingQuery {
  from?: string;
  to?: string;
}

const listQuery = {
  type: 'object',
  properties: {
    from: { type: 'string', format: 'date-time' },
    to: { type: 'string', format: 'date-time' },
    ...PAGING_QUERY_SCHEMA.properties,
  },
};

/** A trace as one turn of the conversation. */
const turnOf = (t: StoredTrace) => ({
  id: t.id,
  name: t.name,
  status: t.status,
  source: t.source,
  startTime: t.startTime,
  endTime: t.endTime,
  duration: t.durationMs,
  userId: t.userId,
  tokens: t.tokens,
  cost: t.cost,
  input: t.input ?? null,
  output: t.output ?? null,
});

/** The gateway key a gateway trace was made with (its `gateway.key` metadata, the key's alias). */
const gatewayKeyOf = (t: StoredTrace) => {
  const key = t.metadata['gateway.key'];
  return typeof key === 'string' ? key : undefined;
};

export function registerDashboardSessions(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireSession(ctx, 'viewer');
  const reads = () => withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);

  app.get<{ Querystring: ListQuery }>(
    '/projects/:project/sessions',
    { onRequest, schema: { querystring: listQuery } },
    async (req) => {
      const project = await projectOf(ctx, req);
      const q = req.query;
      const { data, total } = await listSessionSummaries(reads(), project.id, q);
      return { data, pagination: countedAheadPagination(q, total) };
    },
  );

  app.get<{ Params: { project: string; id: string } }>(
    '/projects/:project/sessions/:id',
    { onRequest },
    async (req) => {
      const project = await projectOf(ctx, req);
      const session = found(await getSession(reads(), project.id, req.params.id), `session '${req.params.id}'`);
      const traces = session.traces;
      const ends = traces.map((t) => Date.parse(t.endTime ?? t.startTime));
      return {
        id: session.id,
        environment: session.environment,
        firstSeen: session.createdAt,
        lastSeen: new Date(Math.max(...ends)).toISOString(),
        traceCount: traces.length,
        tokens: traces.reduce((n, t) => n + t.tokens, 0),
        cost: traces.reduce((n, t) => n + t.cost, 0),
        latencyMs: traces.reduce((n, t) => n + (t.durationMs ?? 0), 0),
        userIds: [...new Set(traces.flatMap((t) => t.userId ?? []))],
        gatewayKeys: [...new Set(traces.flatMap((t) => gatewayKeyOf(t) ?? []))],
        traces: traces.map(turnOf),
      };
    },
  );
}
