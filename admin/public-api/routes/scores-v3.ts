// GET {base_url}/api/public/v3/scores: Langfuse's cursor-paged score list, as the Langfuse Python SDK v5 reads scores
// (`api.scores.get_many`). Core fields always; the field groups `details`, `subject` and `annotation` on request;
// `value` typed by dataType (number, boolean, or the category / text). The cursor is base64url of JSON
// {timestamp, id} of the page's last score (newest first, ties on id), so a page never repeats or skips a score.
import type { FastifyInstance } from 'fastify';
import { withStatementTimeout } from '../../../src/platform/store/database.ts';
import { listScoresWithoutTotal, type StoredScore } from '../../../src/platform/store/repos/scores.ts';
import type { FilterCondition } from '../../../src/platform/store/repos/structured-filter.ts';
import type { AdminContext } from '../../context.ts';
import { commaList } from '../list-param.ts';
import { invalidRequestData } from '../public-error.ts';
import { projectOf, requireKey } from '../route-access.ts';

type Query = Record<string, string | undefined>;
const GROUPS = ['details', 'subject', 'annotation'] as const;
const DATA_TYPES = ['NUMERIC', 'BOOLEAN', 'CATEGORICAL', 'TEXT', 'CORRECTION'];

const refuse = (param: string, message: string) => invalidRequestData([{ path: [param], message }]);
const one = (q: Query, param: string) => (q[param] === undefined || q[param] === '' ? undefined : q[param]);

function limitOf(q: Query): number {
  const raw = one(q, 'limit');
  if (raw === undefined) return 50;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw refuse('limit', 'must be a whole number from 1 to 100');
  return n;
}

function cursorOf(q: Query): { timestamp: string; id: string } | undefined {
  const raw = one(q, 'cursor');
  if (raw === undefined) return undefined;
  try {
    const c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { timestamp?: unknown; id?: unknown };
    if (typeof c.timestamp === 'string' && !Number.isNaN(Date.parse(c.timestamp)) && typeof c.id === 'string')
      return { timestamp: c.timestamp, id: c.id };
  } catch {
    // answered below
  }
  throw refuse('cursor', 'is not a cursor this API gave: pass meta.cursor of the previous page as it is');
}

const cursorAfter = (s: StoredScore) =>
  Buffer.from(JSON.stringify({ timestamp: s.timestamp, id: s.id })).toString('base64url');

function groupsOf(q: Query): Set<string> {
  const asked = commaList(one(q, 'fields')) ?? [];
  const unknown = asked.filter((g) => !(GROUPS as readonly string[]).includes(g));
  if (unknown.length > 0) throw refuse('fields', `unknown field group ${unknown.join(', ')}: use ${GROUPS.join(', ')}`);
  return new Set(asked);
}

/** `value`, `valueMin` and `valueMax` as conditions; they need one dataType (NUMERIC for the bounds). */
function valueConditions(q: Query, dataTypes: string[] | undefined): FilterCondition[] {
  const values = commaList(one(q, 'value'));
  const bounds = (['valueMin', 'valueMax'] as const).filter((p) => one(q, p) !== undefined);
  if (values === undefined && bounds.length === 0) return [];
  const dataType = dataTypes?.length === 1 ? dataTypes[0] : undefined;
  const conditions: FilterCondition[] = [];
  for (const p of bounds) {
    if (dataType !== 'NUMERIC') throw refuse(p, 'requires dataType=NUMERIC');
    const n = Number(one(q, p));
    if (!Number.isFinite(n)) throw refuse(p, 'must be a finite number');
    conditions.push({ type: 'number', column: 'value', operator: p === 'valueMin' ? '>=' : '<=', value: n });
  }
  if (values === undefined) return conditions;
  if (dataType === 'CATEGORICAL')
    return [...conditions, { type: 'stringOptions', column: 'stringValue', operator: 'any of', value: values }];
  if (dataType === 'BOOLEAN') {
    if (values.some((v) => v !== 'true' && v !== 'false')) throw refuse('value', 'must be true or false');
    const wanted = [...new Set(values)];
    return wanted.length === 2
      ? conditions
      : [...conditions, { type: 'number', column: 'value', operator: '=', value: wanted[0] === 'true' ? 1 : 0 }];
  }
  if (dataType !== 'NUMERIC') throw refuse('value', 'requires one dataType of NUMERIC, BOOLEAN or CATEGORICAL');
  const numbers = values.map(Number);
  if (numbers.some((n) => !Number.isFinite(n))) throw refuse('value', 'must be finite numbers');
  if (numbers.length > 1) throw refuse('value', 'takes one number for NUMERIC scores (a range: valueMin, valueMax)');
  return [...conditions, { type: 'number', column: 'value', operator: '=', value: numbers[0] }];
}

/** The comma-list filters as conditions (any of the values), and the subject rules. */
function filterOf(q: Query) {
  const lists: Record<string, string[] | undefined> = {};
  for (const param of ['id', 'name', 'source', 'dataType', 'environment', 'traceId', 'sessionId', 'observationId'])
    lists[param] = commaList(one(q, param));
  for (const param of ['source', 'dataType']) lists[param] = lists[param]?.map((v) => v.toUpperCase());
  const badType = lists.dataType?.find((t) => !DATA_TYPES.includes(t));
  if (badType) throw refuse('dataType', `unknown data type ${badType}: use ${DATA_TYPES.join(', ')}`);
  const subjects = ['traceId', 'sessionId', 'experimentId'].filter((p) => one(q, p) !== undefined);
  if (subjects.length > 1) throw refuse(subjects[1], `cannot be combined with ${subjects[0]}`);
  if (lists.observationId && !lists.traceId)
    throw refuse('observationId', 'requires traceId (observation ids are scoped to a trace)');
  const conditions: FilterCondition[] = Object.entries(lists).flatMap(([column, value]) =>
    value === undefined ? [] : [{ type: 'stringOptions' as const, column, operator: 'any of', value }],
  );
  const single = (param: string) => {
    const values = commaList(one(q, param));
    if (values && values.length > 1) throw refuse(param, 'takes one value here');
    return values?.[0];
  };
  const timestamp = (param: string) => {
    const value = one(q, param);
    if (value !== undefined && Number.isNaN(Date.parse(value))) throw refuse(param, 'must be an ISO 8601 time');
    return value;
  };
  return {
    conditions: [...conditions, ...valueConditions(q, lists.dataType)],
    configId: single('configId'),
    queueId: single('queueId'),
    datasetRunId: single('experimentId'),
    authorUserId: single('authorUserId'),
    from: timestamp('fromTimestamp'),
    to: timestamp('toTimestamp'),
  };
}

function typedValue(s: StoredScore): number | boolean | string {
  if (s.dataType === 'NUMERIC') return s.value ?? 0;
  if (s.dataType === 'BOOLEAN') return s.value === 1;
  return s.stringValue ?? '';
}

function subjectOf(s: StoredScore) {
  if (s.observationId) return { kind: 'observation', id: s.observationId, traceId: s.traceId };
  if (s.traceId) return { kind: 'trace', id: s.traceId };
  if (s.sessionId) return { kind: 'session', id: s.sessionId };
  return { kind: 'experiment', id: s.datasetRunId };
}

function scoreV3(s: StoredScore, groups: Set<string>) {
  return {
    id: s.id,
    projectId: s.projectId,
    name: s.name,
    dataType: s.dataType,
    value: typedValue(s),
    source: s.source,
    timestamp: s.timestamp,
    environment: s.environment,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    ...(groups.has('details') ? { comment: s.comment, configId: s.configId, metadata: s.metadata } : {}),
    ...(groups.has('subject') ? { subject: subjectOf(s) } : {}),
    ...(groups.has('annotation') ? { authorUserId: s.authorUserId, queueId: s.queueId } : {}),
  };
}

export function registerPublicScoresV3(app: FastifyInstance, ctx: AdminContext): void {
  app.get<{ Querystring: Query }>('/v3/scores', { onRequest: requireKey(ctx, 'project') }, async (req) => {
    const q = req.query;
    const limit = limitOf(q);
    const groups = groupsOf(q);
    const after = cursorOf(q);
    const f = filterOf(q);
    const db = withStatementTimeout(ctx.db, ctx.config().store.query_timeout_ms);
    // One more than the page says whether a next page exists.
    const data = await listScoresWithoutTotal(db, projectOf(req).id, {
      conditions: f.conditions,
      configId: f.configId,
      authorUserId: f.authorUserId,
      queueId: f.queueId,
      datasetRunId: f.datasetRunId,
      from: f.from,
      to: f.to,
      after,
      limit: limit + 1,
      offset: 0,
    });
    const page = data.slice(0, limit);
    return {
      data: page.map((s) => scoreV3(s, groups)),
      meta: data.length > limit ? { limit, cursor: cursorAfter(page[page.length - 1]) } : { limit },
    };
  });
}
