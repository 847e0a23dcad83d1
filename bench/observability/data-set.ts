// The observability bench's traces, as a Langfuse SDK would send them: trace i (0 ≤ i < traces, oldest first, spread
// evenly over the 30 days before `end`) is a trace, two spans, a generation with usage (priced by the service from its
// model) and a score, each trace and observation with about 500 bytes of input and of output. Every field is a
// function of i, so bench/observability/generate.ts can write the same rows with SQL; a test holds the two equal.
import { createHash, randomUUID } from 'node:crypto';
import { seededRandom } from '../rollup-data.ts';

export interface DataSet {
  traces: number;
  /** Start of the newest trace, ms since the epoch. */
  end: number;
}

export const SPAN_MS = 30 * 86_400_000;
export const PROJECT_ID = 'bench';
export const NAMES = [
  'chat',
  'rag-answer',
  'summarize',
  'classify-ticket',
  'extract-invoice',
  'translate',
  'agent-run',
  'code-review',
  'search',
  'draft-email',
  'moderate',
  'plan-trip',
];
export const TAGS = ['support', 'sales', 'billing', 'onboarding', 'internal', 'mobile'];
/** Every tenth trace also carries this tag. */
export const EXTRA_TAG = 'experiment';
export const TIERS = ['free', 'pro', 'enterprise'];
export const REGIONS = ['eu-west', 'us-east', 'us-west', 'ap-south'];
export const CUSTOMERS = 50;
export const USERS = 2000;
/** Consecutive traces of one session (and so of one user). */
export const SESSION_TRACES = 5;
export const MODEL = 'gpt-4o-mini';
export const MODEL_PARAMETERS = { temperature: 0.2, max_tokens: 512 };
export const SYSTEM_PROMPT = 'You are a helpful assistant for the ACME support team.';
export const SCORE_NAME = 'helpfulness';
export const ERROR_MESSAGE = 'upstream timeout after 30 s';
export const TEXT_LENGTH = 460;

/** Milliseconds after the trace's start: [start, end] of each observation, the first token, the score. */
export const OFFSETS = {
  retrieve: [5, 155],
  agent: [160, 1400],
  generation: [170, 1350],
  firstToken: 450,
  score: 1500,
} as const;
/** The observations of a trace, in the order the SDK sends them: their names and id suffixes. */
export const OBSERVATIONS = ['retrieve', 'agent', 'generation'] as const;

const WORDS = (
  'the a of to and in for is on that with as it be by this are or from at an we can your our will not have more ' +
  'order invoice account refund shipping delivery customer ticket agent model answer question policy price plan ' +
  'update status error retry request response document search result summary draft email review support billing'
).split(' ');

/** About 6 KB of words, the same on every run; each text field is a slice of it. */
export const TEXT_POOL = (() => {
  const random = seededRandom(21);
  const words: string[] = [];
  for (let length = 0; length < 6000; length += words[words.length - 1].length + 1)
    words.push(WORDS[Math.floor(random() * WORDS.length)]);
  return words.join(' ');
})();

/** Text field `salt` of trace i: TEXT_LENGTH characters of the pool (SQL: generate.ts `textSql`). */
export const textOf = (i: number, salt: number): string => {
  const offset = (i * 7919 + salt * 104729) % (TEXT_POOL.length - TEXT_LENGTH);
  return TEXT_POOL.slice(offset, offset + TEXT_LENGTH);
};

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
export const traceIdOf = (i: number) => md5(`trace-${i}`);
/** 16 hex digits, as OpenTelemetry span ids. */
export const observationIdOf = (i: number, k: number) => md5(`observation-${i}-${k}`).slice(0, 16);
export const scoreIdOf = (i: number) => md5(`score-${i}`);

export const stepOf = (s: DataSet) => Math.max(1, Math.floor(SPAN_MS / s.traces));
export const startOf = (s: DataSet, i: number) => s.end - (s.traces - 1 - i) * stepOf(s);
export const nameOf = (i: number) => NAMES[i % NAMES.length];
export const sessionOf = (i: number) => `session-${Math.floor(i / SESSION_TRACES)}`;
export const userOf = (i: number) => `user-${Math.floor(i / SESSION_TRACES) % USERS}`;
export const tagsOf = (i: number) => [TAGS[Math.floor(i / 7) % TAGS.length], ...(i % 10 === 0 ? [EXTRA_TAG] : [])];
export const environmentOf = (i: number) => (Math.floor(i / 3) % 5 === 0 ? 'staging' : 'production');
export const customerOf = (i: number) => `acme-${Math.floor(i / 11) % CUSTOMERS}`;
export const tierOf = (i: number) => TIERS[Math.floor(i / 13) % TIERS.length];
export const regionOf = (i: number) => REGIONS[Math.floor(i / 17) % REGIONS.length];
/** One trace in fifty fails: its generation is an ERROR, so the trace's status is `error`. */
export const failedAt = (i: number) => i % 50 === 7;
export const inputTokensOf = (i: number) => 120 + ((i * 37) % 400);
export const outputTokensOf = (i: number) => 40 + ((i * 53) % 300);
export const scoreValueOf = (i: number) => 1 + (i % 5);

export interface IngestionEvent {
  id: string;
  type: string;
  timestamp: string;
  body: Record<string, unknown>;
}

/** The five ingestion events of trace i. */
export function traceEvents(s: DataSet, i: number): IngestionEvent[] {
  const start = startOf(s, i);
  const at = (offset: number) => new Date(start + offset).toISOString();
  const environment = environmentOf(i);
  const traceId = traceIdOf(i);
  const idOf = (name: (typeof OBSERVATIONS)[number]) => observationIdOf(i, OBSERVATIONS.indexOf(name));
  const event = (type: string, timestamp: string, body: Record<string, unknown>): IngestionEvent => ({
    id: randomUUID(),
    type,
    timestamp,
    body,
  });
  const observation = (type: string, name: (typeof OBSERVATIONS)[number], fields: Record<string, unknown>) =>
    event(type, at(OFFSETS[name][0]), {
      id: idOf(name),
      traceId,
      name,
      startTime: at(OFFSETS[name][0]),
      endTime: at(OFFSETS[name][1]),
      ...fields,
      environment,
    });
  return [
    event('trace-create', at(0), {
      id: traceId,
      timestamp: at(0),
      name: nameOf(i),
      userId: userOf(i),
      sessionId: sessionOf(i),
      input: { messages: [{ role: 'user', content: textOf(i, 0) }] },
      output: { role: 'assistant', content: textOf(i, 1) },
      metadata: { customer: customerOf(i), tier: tierOf(i), region: regionOf(i) },
      tags: tagsOf(i),
      environment,
    }),
    observation('span-create', 'retrieve', {
      input: { query: textOf(i, 2) },
      output: { documents: [textOf(i, 3)] },
      metadata: { index: 'docs-v2', k: 4 },
    }),
    observation('span-create', 'agent', { input: { task: textOf(i, 4) }, output: { result: textOf(i, 5) } }),
    observation('generation-create', 'generation', {
      parentObservationId: idOf('agent'),
      completionStartTime: at(OFFSETS.firstToken),
      model: MODEL,
      modelParameters: MODEL_PARAMETERS,
      input: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: textOf(i, 6) },
      ],
      output: { role: 'assistant', content: textOf(i, 7) },
      usageDetails: { input: inputTokensOf(i), output: outputTokensOf(i) },
      ...(failedAt(i) && { level: 'ERROR', statusMessage: ERROR_MESSAGE }),
    }),
    event('score-create', at(OFFSETS.score), {
      id: scoreIdOf(i),
      traceId,
      observationId: idOf('generation'),
      name: SCORE_NAME,
      value: scoreValueOf(i),
      timestamp: at(OFFSETS.score),
      environment,
    }),
  ];
}
