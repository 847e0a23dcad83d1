// GET {base_url}/api/public/traces: the project's traces in Langfuse's list shape (reference §6, §7).
import type { FastifyInstance } from 'fastify';
import querySchema from '../../schemas/api/public-traces-query.json' with { type: 'json' };
import { listTraces, type StoredTrace } from '../../src/store/repos/traces.ts';
import type { AdminContext } from '../context.ts';
import { pageMeta, pageOffset } from '../public-api/paging.ts';
import { projectOf, requireKey } from '../public-api/route-access.ts';

interface TracesQuery {
  page: number;
  limit: number;
  userId?: string;
  name?: string;
  sessionId?: string;
  fromTimestamp?: string;
  toTimestamp?: string;
  tags?: string[];
  environment?: string[];
  release?: string;
  version?: string;
  orderBy: `${'timestamp' | 'name'}.${'asc' | 'desc'}`;
}

/** Our tags are an object; Langfuse's a string list: `k` for an empty value, else `k:v` (the filter accepts both). */
export const tagList = (tags: Record<string, string>): string[] => Object.entries(tags).map(([k, v]) => (v === '' ? k : `${k}:${v}`));

export function publicTrace(t: StoredTrace) {
  return {
    id: t.id,
    timestamp: t.startTime,
    name: t.name,
    input: t.input ?? null,
    output: t.output ?? null,
    sessionId: t.sessionId,
    release: t.release,
    version: t.version,
    userId: t.userId,
    metadata: t.metadata,
    tags: tagList(t.tags),
    public: t.public,
    environment: t.environment,
    htmlPath: `/project/${encodeURIComponent(t.projectId)}/traces/${encodeURIComponent(t.id)}`,
    // Langfuse types latency as a required number, so a trace still in progress reports 0 rather than null.
    latency: t.durationMs === null ? 0 : t.durationMs / 1000,
    totalCost: t.cost,
    observations: t.observationIds ?? [],
    scores: [] as string[],
    projectId: t.projectId,
    bookmarked: false,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    externalId: null,
  };
}

export function registerPublicTraces(app: FastifyInstance, ctx: AdminContext): void {
  app.get<{ Querystring: TracesQuery }>('/traces', { schema: { querystring: querySchema }, onRequest: requireKey(ctx, 'project') }, async (req) => {
    const project = projectOf(req);
    const q = req.query;
    const [field, direction] = q.orderBy.split('.') as ['timestamp' | 'name', 'asc' | 'desc'];
    const { data, total } = await listTraces(ctx.db, project.id, {
      userId: q.userId,
      name: q.name,
      sessionId: q.sessionId,
      from: q.fromTimestamp,
      to: q.toTimestamp,
      tags: q.tags,
      environments: q.environment,
      release: q.release,
      version: q.version,
      orderBy: { column: field === 'name' ? 'name' : 'startTime', direction },
      withObservationIds: true,
      limit: q.limit,
      offset: pageOffset(q),
    });
    return { data: data.map(publicTrace), meta: pageMeta(q, total) };
  });
}
