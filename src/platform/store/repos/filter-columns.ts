// The columns Langfuse's structured `filter` may name on trace, observation and score lists, as SQL over the list
// queries' aliases (`t` for traces, `o` for observations, `s` for scores). Names follow Langfuse's public API docs.
import type { AddCondition } from './rows.ts';
import type { FilterColumn } from './structured-filter.ts';

/** Our tags are an object; Langfuse's a list: `k` for an empty value, else `k:v`. */
const tagListOf = (alias: string) =>
  `ARRAY(SELECT CASE WHEN e.value = '' THEN e.key ELSE e.key || ':' || e.value END FROM jsonb_each_text(${alias}.tags) e)`;

/**
 * Adds one condition per tag, all of which must hold on the trace aliased `alias`: `k` matches a trace having key `k`
 * (any value); `k:v` matches key `k:v`, or key `k` holding `v` — so a tag copied from a response finds its trace.
 */
export function addTagConditions(alias: string, tags: readonly string[], add: AddCondition): void {
  for (const tag of tags) {
    const colon = tag.indexOf(':');
    if (colon > 0)
      add(
        (k, kv) => `(${alias}.tags ? ${k} OR ${alias}.tags @> ${kv}::text::jsonb)`,
        tag,
        JSON.stringify({ [tag.slice(0, colon)]: tag.slice(colon + 1) }),
      );
    else add((k) => `${alias}.tags ? ${k}`, tag);
  }
}

/**
 * Langfuse's trace latency in seconds, an aggregate over a trace's observations aliased `o`: from the earliest start
 * (or end) to the latest end (or start); null without observations.
 */
export const latencySecondsOf = (o: string) =>
  `EXTRACT(EPOCH FROM (GREATEST(max(${o}.start_time), max(${o}.end_time)) - LEAST(min(${o}.start_time), min(${o}.end_time))))`;

/**
 * Whether an observation counts towards its trace's tokens and cost: every type but spans and events, which carry no
 * usage (Langfuse's generation-like types: generations, embeddings, agents, tools, …).
 */
export const carriesUsage = (alias: string) => `${alias}.type NOT IN ('SPAN', 'EVENT')`;

/** An aggregate over the trace's observations that carry usage, as the trace's tokens and cost are summed (traces.ts). */
const observationsOf = (aggregate: string) =>
  `(SELECT COALESCE(${aggregate}, 0) FROM observations g WHERE g.project_id = t.project_id AND g.trace_id = t.id AND ${carriesUsage('g')})`;

const levelCount = (level: string) =>
  `(SELECT count(*) FROM observations l WHERE l.project_id = t.project_id AND l.trace_id = t.id AND l.level = '${level}')`;

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
  // A trace without observations reads 0, as the lists show it.
  latency: {
    sql: `COALESCE((SELECT ${latencySecondsOf('l')} FROM observations l WHERE l.project_id = t.project_id AND l.trace_id = t.id), 0)`,
    kind: 'number',
  },
  totalTokens: { sql: observationsOf('sum(g.total_tokens)'), kind: 'number' },
  tokens: { sql: observationsOf('sum(g.total_tokens)'), kind: 'number' },
  totalCost: { sql: observationsOf('sum(g.total_cost)'), kind: 'number' },
  errorCount: { sql: levelCount('ERROR'), kind: 'number' },
  warningCount: { sql: levelCount('WARNING'), kind: 'number' },
  defaultCount: { sql: levelCount('DEFAULT'), kind: 'number' },
  debugCount: { sql: levelCount('DEBUG'), kind: 'number' },
};

const traceOf = (column: string) =>
  `(SELECT ${column} FROM traces p WHERE p.project_id = o.project_id AND p.id = o.trace_id)`;
/** The sum of the usage parts of observation `o` whose key holds `part` (input, output, …). */
export const usageSum = (part: string) =>
  `(SELECT COALESCE(sum(u.value::numeric), 0) FROM jsonb_each_text(o.usage_details) u WHERE u.key LIKE '%${part}%')`;
const costSum = (part: string) =>
  `(SELECT COALESCE(sum(c.value::numeric), 0) FROM jsonb_each_text(o.cost_details) c WHERE c.key LIKE '%${part}%')`;

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

/** Score lists join the scored trace as `t` (null for session and dataset-run scores). */
export const SCORE_FILTER_COLUMNS: Record<string, FilterColumn> = {
  id: { sql: 's.id', kind: 'string' },
  timestamp: { sql: 's.timestamp', kind: 'datetime' },
  environment: { sql: 's.environment', kind: 'string' },
  traceId: { sql: 's.trace_id', kind: 'string' },
  observationId: { sql: 's.observation_id', kind: 'string' },
  sessionId: { sql: 's.session_id', kind: 'string' },
  name: { sql: 's.name', kind: 'string' },
  value: { sql: 's.value', kind: 'number' },
  source: { sql: 's.source', kind: 'string' },
  comment: { sql: 's.comment', kind: 'string' },
  dataType: { sql: 's.data_type', kind: 'string' },
  stringValue: { sql: 's.string_value', kind: 'string' },
  metadata: { sql: 's.metadata', kind: 'object' },
  traceName: { sql: 't.name', kind: 'string' },
  userId: { sql: 't.user_id', kind: 'string' },
  // Empty for a score without a stored trace (jsonb_each_text of null has no rows).
  trace_tags: { sql: tagListOf('t'), kind: 'array' },
};
