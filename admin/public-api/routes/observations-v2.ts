// GET {base_url}/api/public/v2/observations: Langfuse's cursor-paged observation list with field groups (ObservationV2;
// docs/public-api.md "GET /api/public/v2/observations"). The cursor is base64 of JSON {lastStartTimeTo, lastTraceId,
// lastId}.
import type { FastifyInstance } from 'fastify';
import querySchema from '../../../schemas/api/public-observations-v2-query.json' with { type: 'json' };
import type { ModelDefinition } from '../../../src/platform/store/repos/models.ts';
import { observationModels } from '../../../src/platform/pricing/observation-model.ts';
import { withStatementTimeout } from '../../../src/platform/store/database.ts';
import { OBSERVATION_FILTER_COLUMNS } from '../../../src/platform/store/repos/filter-columns.ts';
import { isIsoTimestamp } from '../../../src/platform/store/repos/structured-filter.ts';
import { getTracesByIds, type StoredTrace } from '../../../src/platform/store/repos/traces.ts';
import { listObservations, type StoredObservation } from '../../../src/platform/store/repos/observations.ts';
import type { AdminContext } from '../../context.ts';
import { readFilterParam } from '../filter-param.ts';
import { listParam } from '../list-param.ts';
import { invalidRequestData } from '../public-error.ts';
import { publicObservation, tagList } from '../representations.ts';
import { projectOf, requireKey } from '../route-access.ts';

interface ObservationsV2Query {
  fields?: string;
  expandMetadata?: string;
  limit: number;
  cursor?: string;
  parseIoAsJson?: boolean;
  name?: string;
  userId?: string;
  sessionId?: string;
  type?: string;
  traceId?: string;
  level?: string;
  parentObservationId?: string;
  isRootObservation?: boolean;
  environment?: string[];
  fromStartTime?: string;
  toStartTime?: string;
  version?: string;
  filter?: string;
}

const SIMPLE_PARAMS = {
  name: 'name',
  userId: 'userId',
  sessionId: 'sessionId',
  type: 'type',
  traceId: 'traceId',
  level: 'level',
  parentObservationId: 'parentObservationId',
  environment: 'environment',
  fromStartTime: 'startTime',
  toStartTime: 'startTime',
  version: 'version',
} as const;

const GROUPS = [
  'core',
  'basic',
  'time',
  'io',
  'metadata',
  'model',
  'usage',
  'prompt',
  'metrics',
  'trace_context',
] as const;
type Group = (typeof GROUPS)[number];
/** Metadata values longer than this are cut unless their key is listed in `expandMetadata` (Langfuse's rule). */
const METADATA_VALUE_LIMIT = 200;

function groupsOf(fields: string | undefined): Set<Group> {
  if (fields === undefined) return new Set(['core', 'basic']);
  // Unknown names are ignored, as Langfuse does; core is always there.
  const named = fields
    .split(',')
    .map((f) => f.trim())
    .filter((f): f is Group => (GROUPS as readonly string[]).includes(f));
  return new Set<Group>(['core', ...named]);
}

interface Cursor {
  lastStartTimeTo: string;
  lastTraceId: string;
  lastId: string;
}

const encodeCursor = (o: StoredObservation): string =>
  Buffer.from(
    JSON.stringify({ lastStartTimeTo: o.startTime, lastTraceId: o.traceId, lastId: o.id } satisfies Cursor),
  ).toString('base64');

function decodeCursor(text: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(text, 'base64').toString('utf8')) as Partial<Cursor>;
    if (isIsoTimestamp(c.lastStartTimeTo) && typeof c.lastId === 'string' && !c.lastId.includes('\u0000'))
      return c as Cursor;
  } catch {
    // answered below
  }
  throw invalidRequestData([{ path: ['cursor'], message: 'Invalid cursor format' }]);
}

/** v2 returns input and output as the raw strings stored: a string as it is, anything else as JSON. */
const rawIo = (v: unknown): string | null =>
  v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v);

function cutMetadata(metadata: Record<string, unknown>, expanded: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(metadata)) {
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    out[k] = expanded.has(k) || text.length <= METADATA_VALUE_LIMIT ? v : text.slice(0, METADATA_VALUE_LIMIT);
  }
  return out;
}

/** v2 answers prices as decimal strings (Langfuse serialises its Decimal prices). */
const decimal = (price: number | null) => (price === null ? null : String(price));

function observationV2(
  o: StoredObservation,
  trace: StoredTrace | undefined,
  model: ModelDefinition | undefined,
  groups: Set<Group>,
  expanded: Set<string>,
) {
  const v1 = publicObservation(o, model);
  return {
    id: o.id,
    traceId: o.traceId,
    startTime: o.startTime,
    endTime: o.endTime,
    projectId: o.projectId,
    parentObservationId: o.parentObservationId,
    type: o.type,
    isRootObservation: o.parentObservationId === null,
    ...(groups.has('basic') && {
      name: o.name,
      level: o.level,
      statusMessage: o.statusMessage,
      version: o.version,
      environment: o.environment,
      bookmarked: false,
      public: trace?.public ?? false,
      userId: trace?.userId ?? null,
      sessionId: trace?.sessionId ?? null,
    }),
    ...(groups.has('time') && {
      completionStartTime: o.completionStartTime,
      createdAt: o.createdAt,
      updatedAt: o.updatedAt,
    }),
    ...(groups.has('io') && { input: rawIo(o.input), output: rawIo(o.output) }),
    ...(groups.has('metadata') && { metadata: cutMetadata(o.attributes, expanded) }),
    ...(groups.has('model') && {
      model: o.model,
      internalModelId: v1.modelId,
      modelParameters: o.modelParameters ?? {},
    }),
    // Always present, filled with the model group only (Langfuse's v2).
    ...(groups.has('model')
      ? {
          modelId: v1.modelId,
          inputPrice: decimal(v1.inputPrice),
          outputPrice: decimal(v1.outputPrice),
          totalPrice: decimal(v1.totalPrice),
        }
      : { modelId: null, inputPrice: null, outputPrice: null, totalPrice: null }),
    ...(groups.has('usage') && {
      usageDetails: o.usageDetails,
      costDetails: o.costDetails,
      totalCost: o.totalCost,
      usagePricingTierName: null,
    }),
    ...(groups.has('prompt') && { promptId: o.promptId, promptName: o.promptName, promptVersion: o.promptVersion }),
    ...(groups.has('metrics') && { latency: v1.latency, timeToFirstToken: v1.timeToFirstToken }),
    ...(groups.has('trace_context') && {
      traceName: trace?.name ?? null,
      tags: trace ? tagList(trace.tags) : [],
      release: trace?.release ?? null,
    }),
  };
}

export function registerPublicObservationsV2(app: FastifyInstance, ctx: AdminContext): void {
  app.get<{ Querystring: ObservationsV2Query }>(
    '/v2/observations',
    { schema: { querystring: querySchema }, onRequest: requireKey(ctx, 'project') },
    async (req) => {
      const projectId = projectOf(req).id;
      const { conditions, query } = readFilterParam(req.query, OBSERVATION_FILTER_COLUMNS, SIMPLE_PARAMS);
      const {
        fields,
        expandMetadata,
        limit,
        cursor,
        parseIoAsJson,
        isRootObservation,
        environment,
        fromStartTime,
        toStartTime,
        ...exact
      } = query;
      if (parseIoAsJson)
        throw invalidRequestData([
          {
            path: ['parseIoAsJson'],
            message: 'parseIoAsJson is no longer supported: input and output are returned as raw strings',
          },
        ]);
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      const db = withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);
      // One row more than the page tells whether another page follows.
      const { data } = await listObservations(db, projectId, {
        ...exact,
        root: isRootObservation,
        environments: listParam(environment),
        from: fromStartTime,
        to: toStartTime,
        conditions,
        after: after && { startTime: after.lastStartTimeTo, id: after.lastId },
        countTotal: false,
        limit: limit + 1,
        offset: 0,
      });
      const page = data.slice(0, limit);
      const groups = groupsOf(fields);
      const needsTrace = groups.has('basic') || groups.has('trace_context');
      const traces = needsTrace
        ? new Map((await getTracesByIds(db, projectId, [...new Set(page.map((o) => o.traceId))])).map((t) => [t.id, t]))
        : new Map<string, StoredTrace>();
      const expanded = new Set(
        (expandMetadata ?? '')
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean),
      );
      const modelOf = groups.has('model') ? await observationModels(db, projectId) : () => undefined;
      return {
        data: page.map((o) => observationV2(o, traces.get(o.traceId), modelOf(o), groups, expanded)),
        meta: data.length > limit ? { cursor: encodeCursor(page[page.length - 1]) } : {},
      };
    },
  );
}
