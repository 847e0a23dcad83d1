// The columns Langfuse's structured `filter` may name on trace and observation lists, as SQL over the list queries'
// aliases (`t` for traces, `o` for observations). Names follow Langfuse's public API docs.
import type { FilterColumn } from './structured-filter.ts';

/** Our tags are an object; Langfuse's a list: `k` for an empty value, else `k:v`. */
const tagListOf = (alias: string) =>
  `ARRAY(SELECT CASE WHEN e.value = '' THEN e.key ELSE e.key || ':' || e.value END FROM jsonb_each_text(${alias}.tags) e)`;

/**
 * Whether an observation counts towards its trace's tokens and cost: every type but spans and events, which carry no
 * usage (Langfuse's generation-like types: generations, embeddings, agents, tools, …).
 */
export const carriesUsage = (alias: string) => `${alias}.type NOT IN ('SPAN', 'EVENT')`;

/** An aggregate over the trace's observations that carry usage, as the trace's tokens and cost are summed (traces.ts). */
const observationsOf = (aggregate: string) =>
  `(SELECT COALESCE(${aggregate}, 0) FROM observations g WHERE g.project_id = t.project_id AND g.trace_id = t.id AND ${carriesUsage('g')})`;

const levelCount = (level: string) => `(SELECT count(*) FROM observations l WHERE l.project_id = t.project_id AND l.trace_id = t.id AND l.level = '${level}')`;

export const TRACE_FILTER_COLUMNS: Record<string, FilterColumn> = {
  id: { sql: 't.id', kind: 'string' },
  name: { sql: 't.name', kind: 'string' },
  timestamp: { sql: 't.start_time', kind: 'datetime' },
  userId: { sql: 't.user_id', kind: 'string' },
  sessionId: { sql: 't.session_id', kind: 'string' },
  environment: { sql: 't.environment', kind: 'string' },
  version: { sql: 't.version', kind: 'string' },
  release: { sql: 't.release', kind: 'string' },
  tags: { sql: tagListOf('t'), kind: 'array' },
  bookmarked: { sql: 'false', kind: 'boolean' },
  public: { sql: 't.public', kind: 'boolean' },
  metadata: { sql: 't.metadata', kind: 'object' },
  latency: { sql: 'EXTRACT(EPOCH FROM (t.end_time - t.start_time))', kind: 'number' },
  totalTokens: { sql: observationsOf('sum(g.total_tokens)'), kind: 'number' },
  tokens: { sql: observationsOf('sum(g.total_tokens)'), kind: 'number' },
  totalCost: { sql: observationsOf('sum(g.total_cost)'), kind: 'number' },
  errorCount: { sql: levelCount('ERROR'), kind: 'number' },
  warningCount: { sql: levelCount('WARNING'), kind: 'number' },
  defaultCount: { sql: levelCount('DEFAULT'), kind: 'number' },
  debugCount: { sql: levelCount('DEBUG'), kind: 'number' },
};

const traceOf = (column: string) => `(SELECT ${column} FROM traces p WHERE p.project_id = o.project_id AND p.id = o.trace_id)`;
const usageSum = (part: string) => `(SELECT COALESCE(sum(u.value::numeric), 0) FROM jsonb_each_text(o.usage_details) u WHERE u.key LIKE '%${part}%')`;
const costSum = (part: string) => `(SELECT COALESCE(sum(c.value::numeric), 0) FROM jsonb_each_text(o.cost_details) c WHERE c.key LIKE '%${part}%')`;

export const OBSERVATION_FILTER_COLUMNS: Record<string, FilterColumn> = {
  id: { sql: 'o.id', kind: 'string' },
  type: { sql: 'o.type', kind: 'string' },
  name: { sql: 'o.name', kind: 'string' },
  traceId: { sql: 'o.trace_id', kind: 'string' },
  parentObservationId: { sql: 'o.parent_observation_id', kind: 'string' },
  startTime: { sql: 'o.start_time', kind: 'datetime' },
  endTime: { sql: 'o.end_time', kind: 'datetime' },
  environment: { sql: 'o.environment', kind: 'string' },
  level: { sql: 'o.level', kind: 'string' },
  statusMessage: { sql: 'o.status_message', kind: 'string' },
  version: { sql: 'o.version', kind: 'string' },
  userId: { sql: traceOf('p.user_id'), kind: 'string' },
  sessionId: { sql: traceOf('p.session_id'), kind: 'string' },
  traceName: { sql: traceOf('p.name'), kind: 'string' },
  traceTags: { sql: traceOf(tagListOf('p')), kind: 'array' },
  tags: { sql: traceOf(tagListOf('p')), kind: 'array' },
  latency: { sql: 'EXTRACT(EPOCH FROM (o.end_time - o.start_time))', kind: 'number' },
  timeToFirstToken: { sql: 'EXTRACT(EPOCH FROM (o.completion_start_time - o.start_time))', kind: 'number' },
  inputTokens: { sql: usageSum('input'), kind: 'number' },
  outputTokens: { sql: usageSum('output'), kind: 'number' },
  totalTokens: { sql: 'o.total_tokens', kind: 'number' },
  tokens: { sql: 'o.total_tokens', kind: 'number' },
  inputCost: { sql: costSum('input'), kind: 'number' },
  outputCost: { sql: costSum('output'), kind: 'number' },
  totalCost: { sql: 'o.total_cost', kind: 'number' },
  model: { sql: 'o.model', kind: 'string' },
  providedModelName: { sql: 'o.model', kind: 'string' },
  promptName: { sql: 'o.prompt_name', kind: 'string' },
  promptVersion: { sql: 'o.prompt_version', kind: 'number' },
  metadata: { sql: 'o.attributes', kind: 'object' },
};
