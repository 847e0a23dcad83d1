// Rows for a large bench written with SQL instead of through the API, as ingestion would write them. Trace 0 is
// ingested first and serves as the template: every other trace's rows are copies of the template's rows
// (jsonb_populate_record) with each field that depends on i replaced by the SQL twin of its data-set.ts function.
// Whatever is the same for every trace (source, defaults, the model and the model that priced it) is therefore what
// the service itself wrote. Cost is the model's price × usage, with the price the service's model matcher gives.
import type pg from 'pg';
import { projectModelMatcher } from '../../src/platform/pricing/model-cache.ts';
import { selectTier } from '../../src/platform/pricing/model-cost.ts';
import type { Queryable } from '../../src/platform/store/database.ts';
import {
  CUSTOMERS,
  ERROR_MESSAGE,
  EXTRA_TAG,
  MODEL,
  MODEL_PARAMETERS,
  NAMES,
  OBSERVATIONS,
  OFFSETS,
  PROJECT_ID,
  REGIONS,
  SESSION_TRACES,
  SYSTEM_PROMPT,
  TAGS,
  TEXT_LENGTH,
  TEXT_POOL,
  TIERS,
  USERS,
  observationIdOf,
  scoreIdOf,
  stepOf,
  traceIdOf,
  type DataSet,
} from './data-set.ts';

/** Traces per round of statements. */
const CHUNK = 100_000;

interface Statement {
  text: string;
  /** The parameters the text names, in the order of their positions. */
  names: string[];
}

/** A statement whose `$name` placeholders become positions ($1, $2, …), each name given once in `names`. */
function statement(sql: string): Statement {
  const names: string[] = [];
  const text = sql.replace(/\$([a-zA-Z]+)/g, (_, name: string) => {
    const k = names.includes(name) ? names.indexOf(name) : names.push(name) - 1;
    return `$${k + 1}`;
  });
  return { text, names };
}

// The SQL twins of data-set.ts, over the trace index `i` (bigint).
const startMs = `($end::bigint - ($traces::bigint - 1 - i) * $step::bigint)`;
const at = (offset: number) => `('epoch'::timestamptz + (${startMs} + ${offset}) * interval '1 millisecond')`;
const text = (salt: number) =>
  `substr($pool::text, 1 + ((i * 7919 + ${salt * 104729}) % (length($pool::text) - ${TEXT_LENGTH}))::int, ${TEXT_LENGTH})`;
const pick = (list: string, index: string) => `($${list}::text[])[1 + (${index}) % cardinality($${list}::text[])]`;
const traceId = `md5('trace-' || i)`;
const observationId = (name: (typeof OBSERVATIONS)[number]) =>
  `left(md5('observation-' || i || '-${OBSERVATIONS.indexOf(name)}'), 16)`;
const environment = `CASE WHEN (i / 3) % 5 = 0 THEN 'staging' ELSE 'production' END`;
const failed = `i % 50 = 7`;
const inputTokens = `(120 + (i * 37) % 400)`;
const outputTokens = `(40 + (i * 53) % 300)`;
const inputCost = `${inputTokens} * $inputPrice::float8`;
const outputCost = `${outputTokens} * $outputPrice::float8`;
const message = (role: string, content: string) => `jsonb_build_object('role', '${role}', 'content', ${content})`;
const written = `'created_at', now(), 'updated_at', now()`;
const traceEnd = Math.max(...OBSERVATIONS.map((name) => OFFSETS[name][1]));
const series = `generate_series($from::bigint, $to::bigint - 1) AS i`;

const TRACES_SQL = statement(`INSERT INTO traces SELECT r.* FROM ${series},
  LATERAL jsonb_populate_record(
    (SELECT t FROM traces t WHERE t.project_id = $project AND t.id = $templateTrace),
    jsonb_build_object(
      'id', ${traceId},
      'name', ${pick('names', 'i')},
      'status', CASE WHEN ${failed} THEN 'error' ELSE 'completed' END,
      'start_time', ${at(0)},
      'end_time', ${at(traceEnd)},
      'input', jsonb_build_object('messages', jsonb_build_array(${message('user', text(0))})),
      'output', ${message('assistant', text(1))},
      'metadata', jsonb_build_object('customer', 'acme-' || ((i / 11) % ${CUSTOMERS}), 'tier', ${pick('tiers', 'i / 13')},
        'region', ${pick('regions', 'i / 17')}),
      'tags', CASE WHEN i % 10 = 0 THEN jsonb_build_object(${pick('tags', 'i / 7')}, '', '${EXTRA_TAG}', '')
        ELSE jsonb_build_object(${pick('tags', 'i / 7')}, '') END,
      'user_id', 'user-' || ((i / ${SESSION_TRACES}) % ${USERS}),
      'session_id', 'session-' || (i / ${SESSION_TRACES}),
      'environment', ${environment},
      ${written})) AS r`);

/** Overrides of the observation fields that depend on i, for each of OBSERVATIONS. */
const OBSERVATION_FIELDS: Record<(typeof OBSERVATIONS)[number], string> = {
  retrieve: `'input', jsonb_build_object('query', ${text(2)}),
    'output', jsonb_build_object('documents', jsonb_build_array(${text(3)}))`,
  agent: `'input', jsonb_build_object('task', ${text(4)}), 'output', jsonb_build_object('result', ${text(5)})`,
  generation: `'parent_observation_id', ${observationId('agent')},
    'completion_start_time', ${at(OFFSETS.firstToken)},
    'input', jsonb_build_array(${message('system', '$system::text')}, ${message('user', text(6))}),
    'output', ${message('assistant', text(7))},
    'usage_details', jsonb_build_object('input', ${inputTokens}, 'output', ${outputTokens},
      'total', ${inputTokens} + ${outputTokens}),
    'cost_details', jsonb_build_object('input', ${inputCost}, 'output', ${outputCost},
      'total', ${inputCost} + ${outputCost}),
    'total_tokens', ${inputTokens} + ${outputTokens},
    'total_cost', ${inputCost} + ${outputCost},
    'level', CASE WHEN ${failed} THEN 'ERROR' ELSE 'DEFAULT' END,
    'status_message', CASE WHEN ${failed} THEN $errorMessage::text END`,
};

// One array of the trace's observations per i, so they are written in the order ingestion writes them.
const OBSERVATIONS_SQL = statement(`INSERT INTO observations SELECT r.* FROM ${series},
  LATERAL unnest(ARRAY[${OBSERVATIONS.map(
    (name, k) => `jsonb_populate_record(
      (SELECT o FROM observations o WHERE o.project_id = $project AND o.id = ($templateObservations::text[])[${k + 1}]),
      jsonb_build_object(
        'id', ${observationId(name)},
        'trace_id', ${traceId},
        'start_time', ${at(OFFSETS[name][0])},
        'end_time', ${at(OFFSETS[name][1])},
        'environment', ${environment},
        ${OBSERVATION_FIELDS[name]},
        ${written}))`,
  ).join(',\n')}]) AS r`);

const SCORES_SQL = statement(`INSERT INTO scores SELECT r.* FROM ${series},
  LATERAL jsonb_populate_record(
    (SELECT s FROM scores s WHERE s.project_id = $project AND s.id = $templateScore),
    jsonb_build_object(
      'id', md5('score-' || i),
      'trace_id', ${traceId},
      'observation_id', ${observationId('generation')},
      'value', 1 + i % 5,
      'environment', ${environment},
      'timestamp', ${at(OFFSETS.score)},
      ${written})) AS r`);

/** The generation's price per input and output token, as the service prices MODEL for the bench project. */
async function prices(db: Queryable): Promise<{ input: number; output: number }> {
  const model = (await projectModelMatcher(db, PROJECT_ID))(MODEL);
  const usage = { input: 1, output: 1, total: 2 };
  const p = model && selectTier(model, { usage, modelParameters: MODEL_PARAMETERS })?.prices;
  if (!p || p.input === undefined || p.output === undefined || Object.hasOwn(p, 'total'))
    throw new Error(`the generator expects ${MODEL} priced per input and output token, with no price for the total`);
  return { input: p.input, output: p.output };
}

export interface GenerateProgress {
  traces: number;
  seconds: number;
}

/**
 * Writes traces [from, to) of the set (from ≥ 1: trace 0, the template, must be stored already) in rounds of CHUNK
 * traces; `onChunk` after each.
 */
export async function generate(
  client: pg.Client,
  db: Queryable,
  set: DataSet,
  range: { from: number; to: number },
  onChunk?: (p: GenerateProgress) => void,
): Promise<GenerateProgress> {
  if (range.from < 1) throw new Error('trace 0 is the template: ingest it, then generate from 1');
  const price = await prices(db);
  const t0 = performance.now();
  for (let from = range.from; from < range.to; from += CHUNK) {
    const to = Math.min(range.to, from + CHUNK);
    const p: Record<string, unknown> = {
      project: PROJECT_ID,
      pool: TEXT_POOL,
      end: set.end,
      step: stepOf(set),
      traces: set.traces,
      from,
      to,
      names: NAMES,
      tags: TAGS,
      tiers: TIERS,
      regions: REGIONS,
      inputPrice: price.input,
      outputPrice: price.output,
      templateTrace: traceIdOf(0),
      templateObservations: OBSERVATIONS.map((_, k) => observationIdOf(0, k)),
      templateScore: scoreIdOf(0),
      system: SYSTEM_PROMPT,
      errorMessage: ERROR_MESSAGE,
    };
    for (const s of [TRACES_SQL, OBSERVATIONS_SQL, SCORES_SQL])
      await client.query(
        s.text,
        s.names.map((name) => p[name]),
      );
    onChunk?.({ traces: to, seconds: (performance.now() - t0) / 1000 });
  }
  return { traces: range.to, seconds: (performance.now() - t0) / 1000 };
}
