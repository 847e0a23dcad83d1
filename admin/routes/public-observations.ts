// GET {base_url}/api/public/observations and /observations/{observationId}: Langfuse's v1 observation reads
// (ObservationsView, reference §6, §7).
import type { FastifyInstance } from 'fastify';
import querySchema from '../../schemas/api/public-observations-query.json' with { type: 'json' };
import type { ModelDefinition } from '../../src/pricing/model-definition.ts';
import { observationModels, unitPrices } from '../../src/pricing/observation-model.ts';
import { OBSERVATION_FILTER_COLUMNS } from '../../src/store/repos/filter-columns.ts';
import {
  getObservation,
  listObservations,
  type ObservationFilter,
  type StoredObservation,
} from '../../src/store/repos/traces.ts';
import type { AdminContext } from '../context.ts';
import { readFilterParam } from '../public-api/filter-param.ts';
import { listParam } from '../public-api/list-param.ts';
import { pageMeta, pageOffset, type PageQuery } from '../public-api/paging.ts';
import { PublicApiError } from '../public-api/public-error.ts';
import { projectOf, requireKey } from '../public-api/route-access.ts';

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

/** The sum of the entries whose key contains `part` (Langfuse's back-compat usage fields); null when there are none. */
function sumOf(details: Record<string, number>, part: string): number | null {
  const values = Object.entries(details)
    .filter(([k]) => k.includes(part))
    .map(([, v]) => v);
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0);
}

const seconds = (from: string, to: string | null): number | null =>
  to === null ? null : (Date.parse(to) - Date.parse(from)) / 1000;

/** Langfuse's ObservationsView; `model` is the observation's model (observation-model.ts), which gives `modelId` and the prices. */
export function publicObservation(o: StoredObservation, model: ModelDefinition | undefined) {
  const input = sumOf(o.usageDetails, 'input') ?? 0;
  const output = sumOf(o.usageDetails, 'output') ?? 0;
  const total = o.usageDetails.total ?? o.totalTokens;
  return {
    id: o.id,
    projectId: o.projectId,
    traceId: o.traceId,
    parentObservationId: o.parentObservationId,
    type: o.type,
    name: o.name,
    environment: o.environment,
    startTime: o.startTime,
    endTime: o.endTime,
    completionStartTime: o.completionStartTime,
    version: o.version,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    input: o.input ?? null,
    output: o.output ?? null,
    // Langfuse's observation metadata is our observation `attributes`.
    metadata: o.attributes,
    level: o.level,
    statusMessage: o.statusMessage,
    model: o.model,
    modelParameters: o.modelParameters ?? {},
    promptId: o.promptId,
    promptName: o.promptName,
    promptVersion: o.promptVersion,
    usageDetails: o.usageDetails,
    costDetails: o.costDetails,
    usagePricingTierName: null,
    usagePricingTierId: null,
    modelId: model?.id ?? null,
    ...unitPrices(model),
    calculatedInputCost: sumOf(o.costDetails, 'input'),
    calculatedOutputCost: sumOf(o.costDetails, 'output'),
    calculatedTotalCost: o.totalCost,
    latency: seconds(o.startTime, o.endTime),
    timeToFirstToken: o.completionStartTime === null ? null : seconds(o.startTime, o.completionStartTime),
    usage: { unit: 'TOKENS', input, output, total },
    unit: 'TOKENS',
    promptTokens: input,
    completionTokens: output,
    totalTokens: total,
  };
}

export function registerPublicObservations(app: FastifyInstance, ctx: AdminContext): void {
  app.get<{ Querystring: ObservationsQuery }>(
    '/observations',
    { schema: { querystring: querySchema }, onRequest: requireKey(ctx, 'project') },
    async (req) => {
      const { conditions, query } = readFilterParam(req.query, OBSERVATION_FILTER_COLUMNS, SIMPLE_OBSERVATION_PARAMS);
      const { page, limit, environment, fromStartTime, toStartTime, ...exact } = query;
      const projectId = projectOf(req).id;
      const { data, total } = await listObservations(ctx.db, projectId, {
        ...exact,
        conditions,
        environments: listParam(environment),
        from: fromStartTime,
        to: toStartTime,
        limit,
        offset: pageOffset({ page, limit }),
      });
      const modelOf = await observationModels(ctx.db, projectId);
      return { data: data.map((o) => publicObservation(o, modelOf(o))), meta: pageMeta({ page, limit }, total) };
    },
  );

  app.get<{ Params: { observationId: string } }>(
    '/observations/:observationId',
    { onRequest: requireKey(ctx, 'project') },
    async (req) => {
      const { observationId } = req.params;
      const projectId = projectOf(req).id;
      const observation = await getObservation(ctx.db, projectId, observationId);
      if (!observation)
        throw new PublicApiError('NotFoundError', `Observation ${observationId} not found within authorized project`);
      return publicObservation(observation, (await observationModels(ctx.db, projectId))(observation));
    },
  );
}
