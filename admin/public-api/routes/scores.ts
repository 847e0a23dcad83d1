// Scores of the public API (docs/public-api.md "Scores"): POST /scores (same rules as ingestion `score-create`; one
// score, or an array of them as the Langfuse Python SDK v5 sends), GET /scores and GET /v2/scores (Langfuse's v1 and v2
// lists, one shape; v1 holds trace scores only), GET /scores/{id} and /v2/scores/{id}, DELETE /scores/{id}.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import querySchema from '../../../schemas/api/public-scores-query.json' with { type: 'json' };
import { checkScoreBody } from '../../../src/observability/ingestion/event-schema.ts';
import { scoreRowOf } from '../../../src/observability/ingestion/score-input.ts';
import { storableScoreIssues } from '../../../src/observability/ingestion/storable-event.ts';
import { withStatementTimeout } from '../../../src/platform/store/database.ts';
import { SCORE_FILTER_COLUMNS } from '../../../src/platform/store/repos/filter-columns.ts';
import { getScoreConfigsByIds } from '../../../src/platform/store/repos/score-configs.ts';
import {
  deleteScore,
  getScore,
  listScores,
  upsertScores,
  type ScoreDataType,
  type ScoreSource,
} from '../../../src/platform/store/repos/scores.ts';
import type { AdminContext } from '../../context.ts';
import { readFilterParam } from '../filter-param.ts';
import { commaList, listParam } from '../list-param.ts';
import { pageMeta, pageOffset } from '../paging.ts';
import { invalidRequestData, PublicApiError } from '../public-error.ts';
import { publicScore, tagList } from '../representations.ts';
import { projectOf, requireKey } from '../route-access.ts';
import { CHECKS_ITS_OWN_BODY } from '../storable-text.ts';

interface ScoresQuery {
  page: number;
  limit: number;
  userId?: string;
  name?: string;
  fromTimestamp?: string;
  toTimestamp?: string;
  environment?: string[];
  source?: ScoreSource;
  operator?: '<' | '>' | '<=' | '>=' | '=' | '!=';
  value?: number;
  scoreIds?: string;
  configId?: string;
  queueId?: string;
  dataType?: ScoreDataType;
  traceId?: string;
  observationId?: string;
  sessionId?: string;
  datasetRunId?: string;
  traceTags?: string[];
  filter?: string;
}

/** The simple parameters and the filter column each stands for (the filter's condition replaces the parameter). */
const SIMPLE_SCORE_PARAMS = {
  name: 'name',
  userId: 'userId',
  fromTimestamp: 'timestamp',
  toTimestamp: 'timestamp',
  environment: 'environment',
  source: 'source',
  operator: 'value',
  value: 'value',
  scoreIds: 'id',
  dataType: 'dataType',
  traceId: 'traceId',
  observationId: 'observationId',
  sessionId: 'sessionId',
  traceTags: 'trace_tags',
} as const;

type IdParams = { id: string };

const scoreNotFound = () => new PublicApiError('NotFoundError', 'Score not found');

type ScoresRequest = FastifyRequest<{ Querystring: ScoresQuery }>;

/** Rows for score bodies, or the issues of each refused one (by its index). */
export async function scoreRowsOf(ctx: AdminContext, projectId: string, bodies: readonly unknown[]) {
  const checked = bodies.map(checkScoreBody).map((c) => {
    const unstorable = 'body' in c ? storableScoreIssues(c.body) : [];
    return unstorable.length > 0 ? { issues: unstorable } : c;
  });
  const configIds = checked.flatMap((c) =>
    'body' in c && typeof c.body.configId === 'string' ? [c.body.configId] : [],
  );
  const configs = await getScoreConfigsByIds(ctx.db, projectId, configIds);
  const now = new Date(ctx.clock.now()).toISOString();
  return checked.map((c) => ('issues' in c ? c : scoreRowOf(projectId, c.body, now, configs)));
}

async function createScores(ctx: AdminContext, req: FastifyRequest, reply: FastifyReply) {
  const project = projectOf(req);
  if (!Array.isArray(req.body)) {
    const [score] = await scoreRowsOf(ctx, project.id, [req.body]);
    if ('issues' in score) throw invalidRequestData(score.issues);
    await upsertScores(ctx.db, [score.row]);
    return { id: score.row.id };
  }
  // A batch (Langfuse's CreateScoresRequest): the valid scores are stored before the answer; 202 when all were,
  // else 207 with a message per refused score. The SDK does not retry a 207.
  if (req.body.length === 0) throw invalidRequestData([{ path: [], message: 'must hold at least one score' }]);
  const scores = await scoreRowsOf(ctx, project.id, req.body);
  const rows = scores.flatMap((s) => ('row' in s ? [s.row] : []));
  // One transaction: an id repeated in the batch takes more than one statement (later values win).
  if (rows.length > 0) await ctx.db.transaction((tx) => upsertScores(tx, rows));
  const errors = scores.flatMap((s, i) =>
    'issues' in s
      ? [
          {
            message: `scores[${i}]: ${s.issues.map((e) => `${e.path.join('.') || 'score'}: ${e.message}`).join('; ')}`,
          },
        ]
      : [],
  );
  if (errors.length === 0) return reply.code(202).send({ message: 'Accepted' });
  return reply.code(207).send({ accepted: rows.length, rejected: errors.length, errors });
}

async function listProjectScores(ctx: AdminContext, req: ScoresRequest, traceScoresOnly: boolean) {
  const project = projectOf(req);
  const { conditions, query: q } = readFilterParam(req.query, SCORE_FILTER_COLUMNS, SIMPLE_SCORE_PARAMS);
  const db = withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);
  const { data, total } = await listScores(db, project.id, {
    traceScoresOnly,
    name: q.name,
    userId: q.userId,
    traceId: q.traceId,
    observationIds: commaList(q.observationId),
    sessionId: q.sessionId,
    datasetRunId: q.datasetRunId,
    queueId: q.queueId,
    configId: q.configId,
    source: q.source,
    dataType: q.dataType,
    scoreIds: commaList(q.scoreIds),
    environments: listParam(q.environment),
    traceTags: listParam(q.traceTags),
    from: q.fromTimestamp,
    to: q.toTimestamp,
    value: q.operator !== undefined && q.value !== undefined ? { operator: q.operator, value: q.value } : undefined,
    conditions,
    limit: q.limit,
    offset: pageOffset(q),
  });
  return {
    data: data.map((s) => ({
      ...publicScore(s),
      trace: s.trace && {
        userId: s.trace.userId,
        sessionId: s.trace.sessionId,
        tags: tagList(s.trace.tags),
        environment: s.trace.environment,
      },
    })),
    meta: pageMeta(q, total),
  };
}

async function oneScore(ctx: AdminContext, req: FastifyRequest<{ Params: IdParams }>, traceScoresOnly: boolean) {
  const db = withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);
  const score = await getScore(db, projectOf(req).id, req.params.id, { traceScoresOnly });
  if (!score) throw scoreNotFound();
  return publicScore(score);
}

export function registerPublicScores(app: FastifyInstance, ctx: AdminContext): void {
  const onRequest = requireKey(ctx, 'project');
  // Each score is checked for what the store cannot take (a batch refuses only its bad scores).
  app.post('/scores', { config: CHECKS_ITS_OWN_BODY, onRequest: requireKey(ctx, 'ingestion-write') }, (req, reply) =>
    createScores(ctx, req, reply),
  );
  // v1 answers trace scores only (not session or dataset-run scores), as Langfuse's v1 does; v2 answers every score.
  for (const [prefix, traceScoresOnly] of [
    ['', true],
    ['/v2', false],
  ] as const) {
    app.get<{ Querystring: ScoresQuery }>(
      `${prefix}/scores`,
      { schema: { querystring: querySchema }, onRequest },
      (req) => listProjectScores(ctx, req, traceScoresOnly),
    );
    app.get<{ Params: IdParams }>(`${prefix}/scores/:id`, { onRequest }, (req) => oneScore(ctx, req, traceScoresOnly));
  }
  app.delete<{ Params: IdParams }>('/scores/:id', { onRequest }, async (req, reply) => {
    if (!(await deleteScore(ctx.db, projectOf(req).id, req.params.id))) throw scoreNotFound();
    // Langfuse queues the deletion and answers 202; ours is done by the time the answer leaves.
    return reply.code(202).send({ message: 'Score deletion queued successfully' });
  });
}
