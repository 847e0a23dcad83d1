// GET {base_url}/api/public/observations and /observations/{observationId}: Langfuse's v1 observation reads
// (ObservationsView; docs/public-api.md "GET /api/public/observations").
import type { FastifyInstance } from 'fastify';
import querySchema from '../../../schemas/api/public-observations-query.json' with { type: 'json' };
import { observationModels } from '../../../src/platform/pricing/observation-model.ts';
import { withStatementTimeout } from '../../../src/platform/store/database.ts';
import { OBSERVATION_FILTER_COLUMNS } from '../../../src/platform/store/repos/filter-columns.ts';
import {
  getObservation,
  listObservations,
  type ObservationFilter,
} from '../../../src/platform/store/repos/observations.ts';
import type { AdminContext } from '../../context.ts';
import { readFilterParam } from '../filter-param.ts';
import { listParam } from '../list-param.ts';
import { pageMeta, pageOffset, type PageQuery } from '../paging.ts';
import { PublicApiError } from '../public-error.ts';
import { publicObservation } from '../representations.ts';
import { projectOf, requireKey } from '../route-access.ts';

/** The filter's exact-match fields under their own names; the rest renamed as Langfuse's query names them. */
type ObservationsQuery = PageQuery &
  Omit<ObservationFilter, 'environments' | 'from' | 'to' | 'conditions' | 'limit' | 'offset'> & {
    environment?: string[];
    fromStartTime?: string;
    toStartTime?: string;
    filter?: string;
  };

/** The simple parameters and the filter column each stands for. */
const SIMPLE_OBSERVATION_PARAMS = {
  traceId: 'traceId',
  name: 'name',
  type: 'type',
  userId: 'userId',
  parentObservationId: 'parentObservationId',
  level: 'level',
  version: 'version',
  environment: 'environment',
  fromStartTime: 'startTime',
  toStartTime: 'startTime',
} as const;

export function registerPublicObservations(app: FastifyInstance, ctx: AdminContext): void {
  app.get<{ Querystring: ObservationsQuery }>(
    '/observations',
    { schema: { querystring: querySchema }, onRequest: requireKey(ctx, 'project') },
    async (req) => {
      const { conditions, query } = readFilterParam(req.query, OBSERVATION_FILTER_COLUMNS, SIMPLE_OBSERVATION_PARAMS);
      const { page, limit, environment, fromStartTime, toStartTime, ...exact } = query;
      const projectId = projectOf(req).id;
      const db = withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);
      const { data, total } = await listObservations(db, projectId, {
        ...exact,
        conditions,
        environments: listParam(environment),
        from: fromStartTime,
        to: toStartTime,
        limit,
        offset: pageOffset({ page, limit }),
      });
      const modelOf = await observationModels(db, projectId);
      return { data: data.map((o) => publicObservation(o, modelOf(o))), meta: pageMeta({ page, limit }, total) };
    },
  );

  app.get<{ Params: { observationId: string } }>(
    '/observations/:observationId',
    { onRequest: requireKey(ctx, 'project') },
    async (req) => {
      const { observationId } = req.params;
      const projectId = projectOf(req).id;
      const db = withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);
      const observation = await getObservation(db, projectId, observationId);
      if (!observation)
        throw new PublicApiError('NotFoundError', `Observation ${observationId} not found within authorized project`);
      return publicObservation(observation, (await observationModels(db, projectId))(observation));
    },
  );
}
