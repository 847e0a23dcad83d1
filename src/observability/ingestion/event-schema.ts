// The shape of one ingestion event (docs/public-api.md "POST /api/public/ingestion"): envelope {id, type, timestamp,
// body} and a body per type, checked with ajv so each failure names the field. Unknown body fields are ignored (SDKs
// add fields over time); a null field counts as absent.
import { createAjv } from '../../platform/validation/ajv.ts';
import { describeAjvError } from '../../platform/validation/ajv-errors.ts';
import type { ValidationIssue } from '../../platform/validation/validation-issue.ts';

const ajv = createAjv({ allErrors: true });

/** Observation types by event type; `observation-*` events carry theirs in `body.type`. */
export const OBSERVATION_EVENT_TYPES: Record<string, string> = {
  'span-create': 'SPAN',
  'span-update': 'SPAN',
  'generation-create': 'GENERATION',
  'generation-update': 'GENERATION',
  'event-create': 'EVENT',
  'agent-create': 'AGENT',
  'tool-create': 'TOOL',
  'chain-create': 'CHAIN',
  'retriever-create': 'RETRIEVER',
  'evaluator-create': 'EVALUATOR',
  'embedding-create': 'EMBEDDING',
  'guardrail-create': 'GUARDRAIL',
  'observation-create': '',
  'observation-update': '',
};

export const EVENT_TYPES = ['trace-create', 'score-create', 'sdk-log', ...Object.keys(OBSERVATION_EVENT_TYPES)];

// Langfuse's id rule: 1..800 characters, no carriage return.
const id = { type: 'string', minLength: 1, maxLength: 800, pattern: '^[^\\r]*$' };
const str = { type: 'string' };
const time = { type: 'string', format: 'date-time' };
const numberMap = { type: 'object' };

const envelope = {
  type: 'object',
  required: ['id', 'type', 'timestamp', 'body'],
  properties: {
    id: { type: 'string', minLength: 1 },
    type: { enum: EVENT_TYPES },
    timestamp: time,
    body: { type: 'object' },
  },
};

const traceBody = {
  type: 'object',
  properties: {
    id,
    timestamp: time,
    name: { type: 'string', maxLength: 1000 },
    userId: str,
    sessionId: str,
    release: str,
    version: str,
    tags: { type: 'array', items: str },
    public: { type: 'boolean' },
    environment: str,
  },
};

const observationProperties = {
  id,
  traceId: id,
  parentObservationId: id,
  name: str,
  startTime: time,
  endTime: time,
  completionStartTime: time,
  level: { enum: ['DEBUG', 'DEFAULT', 'WARNING', 'ERROR'] },
  statusMessage: str,
  version: str,
  environment: str,
  model: str,
  modelParameters: { type: 'object' },
  usage: { type: 'object' },
  usageDetails: numberMap,
  costDetails: numberMap,
  promptName: str,
  promptVersion: { type: 'integer' },
};
const observationBody = { type: 'object', required: ['id'], properties: observationProperties };
const legacyObservationBody = {
  type: 'object',
  required: ['id', 'type'],
  properties: { ...observationProperties, type: { enum: ['SPAN', 'GENERATION', 'EVENT'] } },
};

const scoreBody = {
  type: 'object',
  required: ['name', 'value'],
  properties: {
    id: { type: 'string', maxLength: 800, pattern: '^[^\\r]*$' },
    name: { type: 'string', minLength: 1 },
    value: { type: ['number', 'string'] },
    dataType: { enum: ['NUMERIC', 'CATEGORICAL', 'BOOLEAN', 'TEXT'] },
    configId: str,
    traceId: id,
    observationId: id,
    sessionId: id,
    datasetRunId: id,
    comment: str,
    environment: str,
    queueId: str,
    source: { enum: ['API', 'ANNOTATION', 'EVAL'] },
    timestamp: time,
  },
};

const validators = {
  envelope: ajv.compile(envelope),
  trace: ajv.compile(traceBody),
  observation: ajv.compile(observationBody),
  legacyObservation: ajv.compile(legacyObservationBody),
  score: ajv.compile(scoreBody),
};

/**
 * A score's comment given as null clears a stored one (Langfuse's last-write-wins), so it survives `withoutNulls`
 * once the shape is checked.
 */
const keepClearedComment = (raw: Record<string, unknown>, body: Record<string, any>) =>
  raw.comment === null ? { ...body, comment: null } : body;

/** A copy without null-valued fields: Langfuse's schemas are `nullish`, and absent and null merge alike. */
export function withoutNulls(body: Record<string, unknown>): Record<string, any> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null && v !== undefined));
}

function issuesOf(
  validate: { errors?: Parameters<typeof describeAjvError>[0][] | null },
  prefix: string[],
): ValidationIssue[] {
  return (validate.errors ?? []).map((e) => {
    const issue = describeAjvError(e);
    return { path: [...prefix, ...issue.path], message: issue.message };
  });
}

/** `body.traceId: must be …; type: must be one of …` */
export const issueText = (issues: readonly ValidationIssue[]) =>
  issues.map((i) => `${i.path.join('.') || 'event'}: ${i.message}`).join('; ');

export interface IngestionEvent {
  id: string;
  type: string;
  timestamp: string;
  body: Record<string, any>;
  /**
   * Trace fields of this trace-create that only fill what no other event or stored row set (an OTel root span's own
   * name, input and output). Given by the OTel intake, never read from a client's event.
   */
  fillOnly?: readonly string[];
}

/** The event as accepted, or the issues that refuse it. */
export function checkEvent(raw: unknown): { event: IngestionEvent } | { issues: ValidationIssue[] } {
  if (!validators.envelope(raw)) return { issues: issuesOf(validators.envelope, []) };
  const e = raw as unknown as IngestionEvent;
  const body = withoutNulls(e.body);
  const validate =
    e.type === 'trace-create'
      ? validators.trace
      : e.type === 'score-create'
        ? validators.score
        : e.type === 'sdk-log'
          ? undefined
          : e.type.startsWith('observation-')
            ? validators.legacyObservation
            : validators.observation;
  if (validate && !validate(body)) return { issues: issuesOf(validate, ['body']) };
  if (
    (body.promptName === undefined) !== (body.promptVersion === undefined) &&
    e.type !== 'trace-create' &&
    e.type !== 'score-create'
  ) {
    return {
      issues: [{ path: ['body', 'promptName'], message: 'promptName and promptVersion must be given together' }],
    };
  }
  return {
    event: {
      id: e.id,
      type: e.type,
      timestamp: e.timestamp,
      body: e.type === 'score-create' ? keepClearedComment(e.body, body) : body,
    },
  };
}

/** The score body rules alone, for POST /scores. */
export function checkScoreBody(raw: unknown): { body: Record<string, any> } | { issues: ValidationIssue[] } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    return { issues: [{ path: [], message: 'must be a JSON object' }] };
  const body = withoutNulls(raw as Record<string, unknown>);
  if (!validators.score(body)) return { issues: issuesOf(validators.score, []) };
  return { body: keepClearedComment(raw as Record<string, unknown>, body) };
}
