// A score body (POST /api/public/scores and ingestion `score-create`, reference §7) as a row to store, after the rules
// the shape alone cannot say: value against data type, exactly one target, and the source.
import { randomUUID } from 'node:crypto';
import type { ValidationIssue } from '../../admin/public-api/public-error.ts';
import type { ScoreDataType, ScoreRow } from '../store/repos/scores.ts';
import { normalizeEnvironment } from './environment.ts';

function valueFields(dataType: ScoreDataType, value: unknown): Pick<ScoreRow, 'value' | 'stringValue'> | ValidationIssue {
  switch (dataType) {
    case 'NUMERIC':
      return typeof value === 'number' ? { value, stringValue: null } : { path: ['value'], message: 'must be a number for a NUMERIC score' };
    case 'BOOLEAN':
      return value === 0 || value === 1
        ? { value, stringValue: value === 1 ? 'True' : 'False' }
        : { path: ['value'], message: 'must be 1 (true) or 0 (false) for a BOOLEAN score' };
    case 'CATEGORICAL':
      return typeof value === 'string' ? { value: null, stringValue: value } : { path: ['value'], message: 'must be a string for a CATEGORICAL score' };
    case 'TEXT':
      return typeof value === 'string' && value.length >= 1 && value.length <= 500
        ? { value: null, stringValue: value }
        : { path: ['value'], message: 'must be a string of 1 to 500 characters for a TEXT score' };
  }
}

/**
 * The row for a score body already checked against the shape (event-schema.ts). `timestamp` is used when the body
 * has none; an absent or empty id gets a new UUID.
 */
export function scoreRowOf(projectId: string, body: Record<string, any>, timestamp: string): { row: ScoreRow } | { issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const dataType: ScoreDataType = body.dataType ?? (typeof body.value === 'number' ? 'NUMERIC' : 'CATEGORICAL');
  const value = valueFields(dataType, body.value);
  if ('path' in value) issues.push(value);
  const targets = ['traceId', 'sessionId', 'datasetRunId'].filter((k) => body[k] !== undefined);
  if (targets.length !== 1) issues.push({ path: [], message: 'a score needs exactly one target: traceId (with an optional observationId), sessionId or datasetRunId' });
  if (body.observationId !== undefined && body.traceId === undefined) issues.push({ path: ['observationId'], message: 'needs traceId' });
  const source = body.source ?? 'API';
  if (source === 'EVAL') issues.push({ path: ['source'], message: 'EVAL scores are written by evaluators, not through the API; use API or ANNOTATION' });
  if (source === 'ANNOTATION' && body.configId === undefined) issues.push({ path: ['configId'], message: 'is required for an ANNOTATION score' });
  if (issues.length > 0 || 'path' in value) return { issues };
  return {
    row: {
      projectId,
      id: body.id === undefined || body.id === '' ? randomUUID() : body.id,
      traceId: body.traceId ?? null,
      observationId: body.observationId ?? null,
      sessionId: body.sessionId ?? null,
      datasetRunId: body.datasetRunId ?? null,
      name: body.name,
      dataType,
      ...value,
      comment: body.comment ?? null,
      metadata: body.metadata === undefined ? {} : typeof body.metadata === 'object' && !Array.isArray(body.metadata) ? body.metadata : { metadata: body.metadata },
      source,
      configId: body.configId ?? null,
      queueId: body.queueId ?? null,
      environment: normalizeEnvironment(body.environment),
      timestamp: body.timestamp ?? timestamp,
    },
  };
}
