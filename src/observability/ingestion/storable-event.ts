// The rules an ingestion event must meet to be stored, beyond its shape (event-schema.ts): what PostgreSQL cannot
// take is refused as that event's 400, naming the field, so it never fails the statement that writes its neighbours.
import type { ValidationIssue } from '../../platform/validation/validation-issue.ts';
import {
  EARLIEST_STORABLE_TIME,
  fitsIndex,
  MAX_INDEXED_BYTES,
  UNSTORABLE_REASON,
  unstorablePath,
} from '../../platform/validation/storable-text.ts';
import type { IngestionEvent } from './event-schema.ts';

/** Body fields holding content rather than keys, names or labels: stored unindexed, of any length. */
const CONTENT_FIELDS = new Set(['input', 'output', 'statusMessage', 'comment', 'value', 'metadata']);
const TIME_FIELDS = ['timestamp', 'startTime', 'endTime', 'completionStartTime'];
const COUNT_FIELDS = ['usage', 'usageDetails'];
const INT4_MAX = 2_147_483_647;
/** USD; a cost above it is a unit mistake, and a sum of such costs would overflow the trace's total. */
export const MAX_COST_USD = 1e12;

/** Body fields other than content (ids, names, keys: indexed or matched on) longer than an index entry holds. */
function keyFieldIssues(body: Record<string, unknown>, prefix: string[]): ValidationIssue[] {
  return Object.entries(body).flatMap(([k, v]) =>
    typeof v === 'string' && !CONTENT_FIELDS.has(k) && !fitsIndex(v)
      ? [{ path: [...prefix, k], message: `must be at most ${MAX_INDEXED_BYTES} bytes in UTF-8` }]
      : [],
  );
}

/** What a score body (POST /scores, already of the right shape) holds that the store cannot take. */
export function storableScoreIssues(body: Record<string, unknown>): ValidationIssue[] {
  const unstorable = unstorablePath(body);
  if (unstorable) return [{ path: unstorable, message: UNSTORABLE_REASON }];
  const issues = keyFieldIssues(body, []);
  if (typeof body.timestamp === 'string' && Date.parse(body.timestamp) < EARLIEST_STORABLE_TIME)
    issues.push({ path: ['timestamp'], message: 'must be in year 1 or later' });
  return issues;
}

function numbersIn(value: unknown, path: string[], visit: (n: number, path: string[]) => void): void {
  if (typeof value === 'number') visit(value, path);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) numbersIn(v, [...path, k], visit);
}

export function storableIssues(e: IngestionEvent): ValidationIssue[] {
  const unstorable = unstorablePath(e);
  if (unstorable) return [{ path: unstorable, message: UNSTORABLE_REASON }];
  const issues: ValidationIssue[] = [];
  const body = e.body;
  if (!fitsIndex(e.id)) issues.push({ path: ['id'], message: `must be at most ${MAX_INDEXED_BYTES} bytes in UTF-8` });
  issues.push(...keyFieldIssues(body, ['body']));
  for (const tag of Array.isArray(body.tags) ? body.tags : []) {
    if (typeof tag === 'string' && !fitsIndex(tag))
      issues.push({ path: ['body', 'tags'], message: `each tag must be at most ${MAX_INDEXED_BYTES} bytes in UTF-8` });
  }
  for (const [path, time] of [[['timestamp'], e.timestamp], ...TIME_FIELDS.map((k) => [['body', k], body[k]])] as [
    string[],
    unknown,
  ][]) {
    if (typeof time === 'string' && Date.parse(time) < EARLIEST_STORABLE_TIME)
      issues.push({ path, message: 'must be in year 1 or later' });
  }
  if (typeof body.promptVersion === 'number' && Math.abs(body.promptVersion) > INT4_MAX)
    issues.push({ path: ['body', 'promptVersion'], message: `must be at most ${INT4_MAX}` });
  for (const field of COUNT_FIELDS) {
    numbersIn(body[field], ['body', field], (n, path) => {
      if (Math.abs(n) > Number.MAX_SAFE_INTEGER)
        issues.push({ path, message: `must be at most ${Number.MAX_SAFE_INTEGER}` });
    });
  }
  numbersIn(body.costDetails, ['body', 'costDetails'], (n, path) => {
    if (Math.abs(n) > MAX_COST_USD) issues.push({ path, message: `must be at most ${MAX_COST_USD} (USD)` });
  });
  return issues;
}
