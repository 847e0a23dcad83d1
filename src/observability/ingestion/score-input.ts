// A score body (POST /api/public/scores and ingestion `score-create`, docs/public-api.md "Scores") as a row to store,
// after the rules the shape alone cannot say: value against data type and score config, exactly one target, and the
// source.
import { randomUUID } from 'node:crypto';
import type { ValidationIssue } from '../../platform/validation/validation-issue.ts';
import type { StoredScoreConfig } from '../../platform/store/repos/score-configs.ts';
import type { ScoreDataType, ScoreRow } from '../../platform/store/repos/scores.ts';
import { normalizeEnvironment } from './environment.ts';

function valueFields(
  dataType: ScoreDataType,
  value: unknown,
): Pick<ScoreRow, 'value' | 'stringValue'> | ValidationIssue {
  switch (dataType) {
    case 'NUMERIC':
      return typeof value === 'number'
        ? { value, stringValue: null }
        : { path: ['value'], message: 'must be a number for a NUMERIC score' };
    case 'BOOLEAN':
      return value === 0 || value === 1
        ? { value, stringValue: value === 1 ? 'True' : 'False' }
        : { path: ['value'], message: 'must be 1 (true) or 0 (false) for a BOOLEAN score' };
    case 'CATEGORICAL':
      return typeof value === 'string'
        ? { value: null, stringValue: value }
        : { path: ['value'], message: 'must be a string for a CATEGORICAL score' };
    case 'TEXT':
      return typeof value === 'string' && value.length >= 1 && value.length <= 500
        ? { value: null, stringValue: value }
        : { path: ['value'], message: 'must be a string of 1 to 500 characters for a TEXT score' };
  }
}

/** The config named by `configId`: it must exist, be active and have the score's data type (Langfuse's rules). */
function configIssue(
  configId: string,
  config: StoredScoreConfig | undefined,
  dataType: ScoreDataType | undefined,
): ValidationIssue | undefined {
  if (!config) return { path: ['configId'], message: `${configId} is not a score config of this project` };
  if (config.isArchived)
    return {
      path: ['configId'],
      message: 'names an archived score config; restore it (PATCH isArchived: false) before scoring with it',
    };
  if (dataType !== undefined && dataType !== config.dataType)
    return { path: ['dataType'], message: `must be ${config.dataType}, the data type of the score config` };
  return undefined;
}

/** The value against the config: NUMERIC within its bounds, CATEGORICAL one of its labels (stored with its number). */
function valueAgainstConfig(
  config: StoredScoreConfig,
  v: Pick<ScoreRow, 'value' | 'stringValue'>,
): Pick<ScoreRow, 'value' | 'stringValue'> | ValidationIssue {
  if (config.dataType === 'NUMERIC') {
    if (config.minValue !== null && v.value! < config.minValue)
      return { path: ['value'], message: `must be at least ${config.minValue}, the score config's minValue` };
    if (config.maxValue !== null && v.value! > config.maxValue)
      return { path: ['value'], message: `must be at most ${config.maxValue}, the score config's maxValue` };
  }
  if (config.dataType === 'CATEGORICAL') {
    const category = config.categories?.find((c) => c.label === v.stringValue);
    if (!category)
      return {
        path: ['value'],
        message: `must be a category label of the score config: ${(config.categories ?? []).map((c) => JSON.stringify(c.label)).join(', ')}`,
      };
    return { value: category.value, stringValue: category.label };
  }
  return v;
}

/**
 * The row for a score body already checked against the shape (event-schema.ts). `configs` holds the project's score
 * configs the body may name (getScoreConfigsByIds); a score with a config takes the config's name and data type.
 * `timestamp` is used when the body has none; an absent or empty id gets a new UUID.
 */
export function scoreRowOf(
  projectId: string,
  body: Record<string, any>,
  timestamp: string,
  configs: ReadonlyMap<string, StoredScoreConfig>,
): { row: ScoreRow } | { issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const config = body.configId === undefined ? undefined : configs.get(body.configId);
  const badConfig = body.configId === undefined ? undefined : configIssue(body.configId, config, body.dataType);
  if (badConfig) return { issues: [badConfig] };
  const dataType: ScoreDataType =
    body.dataType ?? config?.dataType ?? (typeof body.value === 'number' ? 'NUMERIC' : 'CATEGORICAL');
  const shaped = valueFields(dataType, body.value);
  const value = config && !('path' in shaped) ? valueAgainstConfig(config, shaped) : shaped;
  if ('path' in value) issues.push(value);
  const targets = ['traceId', 'sessionId', 'datasetRunId'].filter((k) => body[k] !== undefined);
  if (targets.length !== 1)
    issues.push({
      path: [],
      message: 'a score needs exactly one target: traceId (with an optional observationId), sessionId or datasetRunId',
    });
  if (body.observationId !== undefined && body.traceId === undefined)
    issues.push({ path: ['observationId'], message: 'needs traceId' });
  const source = body.source ?? 'API';
  if (source === 'EVAL')
    issues.push({
      path: ['source'],
      message: 'EVAL scores are written by evaluators, not through the API; use API or ANNOTATION',
    });
  if (source === 'ANNOTATION' && body.configId === undefined)
    issues.push({ path: ['configId'], message: 'is required for an ANNOTATION score' });
  if (issues.length > 0 || 'path' in value) return { issues };
  return {
    row: {
      projectId,
      id: body.id === undefined || body.id === '' ? randomUUID() : body.id,
      traceId: body.traceId ?? null,
      observationId: body.observationId ?? null,
      sessionId: body.sessionId ?? null,
      datasetRunId: body.datasetRunId ?? null,
      name: config?.name ?? body.name,
      dataType,
      ...value,
      comment: body.comment,
      metadata:
        body.metadata === undefined
          ? {}
          : typeof body.metadata === 'object' && !Array.isArray(body.metadata)
            ? body.metadata
            : { metadata: body.metadata },
      source,
      configId: body.configId ?? null,
      queueId: body.queueId ?? null,
      environment: normalizeEnvironment(body.environment),
      timestamp: body.timestamp ?? timestamp,
    },
  };
}
