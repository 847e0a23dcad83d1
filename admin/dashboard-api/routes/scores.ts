// Dashboard scores: the project's scores newest first with filters, paged by keyset (the last row's time and id, so
// a deep page costs what the first does), and adding an annotation score to a trace or one of its observations.
import type { FastifyInstance } from 'fastify';
import { withStatementTimeout } from '../../../src/platform/store/database.ts';
import {
  listScoreNames,
  listScoresWithoutTotal,
  upsertScores,
  type ScoreDataType,
  type ScoreSource,
  type StoredScore,
} from '../../../src/platform/store/repos/scores.ts';
import type { FilterCondition } from '../../../src/platform/store/repos/structured-filter.ts';
import { listUsers } from '../../../src/platform/store/repos/users.ts';
import type { AdminContext } from '../../context.ts';
import { ANNOTATION_INPUT_SCHEMA, annotationRows, type AnnotationInput } from '../annotation-scores.ts';
import { projectOf } from '../project-scope.ts';
import { requireSession } from '../session-guard.ts';

interface ListQuery {
  name?: string;
  source?: ScoreSource;
  dataType?: ScoreDataType;
  valueMin?: number;
  valueMax?: number;
  traceId?: string;
  from?: string;
  to?: string;
  afterTimestamp?: string;
  afterId?: string;
  limit: number;
}

const text = { type: 'string', minLength: 1 };
const time = { type: 'string', format: 'date-time' };
const listQuery = {
  type: 'object',
  properties: {
    name: text,
    source: { enum: ['API', 'ANNOTATION', 'EVAL'] },
    dataType: { enum: ['NUMERIC', 'CATEGORICAL', 'BOOLEAN', 'TEXT'] },
    valueMin: { type: 'number' },
    valueMax: { type: 'number' },
    traceId: text,
    from: time,
    to: time,
    afterTimestamp: time,
    afterId: text,
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
  },
  dependencies: { afterId: ['afterTimestamp'], afterTimestamp: ['afterId'] },
};

type CreateBody = AnnotationInput & { traceId: string; observationId?: string };

const createBody = {
  ...ANNOTATION_INPUT_SCHEMA,
  required: [...ANNOTATION_INPUT_SCHEMA.required, 'traceId'],
  properties: { ...ANNOTATION_INPUT_SCHEMA.properties, traceId: text, observationId: text },
};

/** The value bounds as the store's structured conditions (they compare the numeric value). */
function valueRange(q: ListQuery): FilterCondition[] {
  const bounds: FilterCondition[] = [];
  if (q.valueMin !== undefined) bounds.push({ type: 'number', column: 'value', operator: '>=', value: q.valueMin });
  if (q.valueMax !== undefined) bounds.push({ type: 'number', column: 'value', operator: '<=', value: q.valueMax });
  return bounds;
}

const scoreRow = (s: StoredScore, authors: Map<string, string>) => ({
  id: s.id,
  name: s.name,
  dataType: s.dataType,
  value: s.value,
  stringValue: s.stringValue,
  source: s.source,
  traceId: s.traceId,
  traceName: s.trace?.name ?? null,
  observationId: s.observationId,
  sessionId: s.sessionId,
  comment: s.comment,
  configId: s.configId,
  queueId: s.queueId,
  author: s.authorUserId ? (authors.get(s.authorUserId) ?? s.authorUserId) : null,
  timestamp: s.timestamp,
});

/** Names offered by the list's name filter. */
const NAMES_OFFERED = 500;

export function registerDashboardScores(app: FastifyInstance, ctx: AdminContext): void {
  const reads = () => withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);

  app.get('/projects/:project/score-names', { onRequest: requireSession(ctx, 'viewer') }, async (req) => {
    const project = await projectOf(ctx, req);
    return { data: await listScoreNames(reads(), project.id, NAMES_OFFERED) };
  });

  app.get<{ Querystring: ListQuery }>(
    '/projects/:project/scores',
    { onRequest: requireSession(ctx, 'viewer'), schema: { querystring: listQuery } },
    async (req) => {
      const project = await projectOf(ctx, req);
      const q = req.query;
      const db = reads();
      // One more than the page says whether an older page exists.
      const rows = await listScoresWithoutTotal(db, project.id, {
        name: q.name,
        source: q.source,
        dataType: q.dataType,
        traceId: q.traceId,
        from: q.from,
        to: q.to,
        conditions: valueRange(q),
        after: q.afterId === undefined ? undefined : { timestamp: q.afterTimestamp!, id: q.afterId },
        limit: q.limit + 1,
        offset: 0,
      });
      const page = rows.slice(0, q.limit);
      const authors = new Map((await listUsers(ctx.db)).users.map((u) => [u.id, u.email]));
      const last = page[page.length - 1];
      return {
        data: page.map((s) => scoreRow(s, authors)),
        next: rows.length > q.limit ? { afterTimestamp: last!.timestamp, afterId: last!.id } : null,
      };
    },
  );

  app.post<{ Body: CreateBody }>(
    '/projects/:project/scores',
    { onRequest: requireSession(ctx, 'member'), schema: { body: createBody } },
    async (req) => {
      const project = await projectOf(ctx, req);
      const { traceId, observationId, ...input } = req.body;
      const rows = await annotationRows(ctx, req, project.id, [input], { traceId, observationId });
      await upsertScores(ctx.db, rows);
      return { id: rows[0]!.id };
    },
  );
}
