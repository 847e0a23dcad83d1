// What a score config may hold per data type (Langfuse's rules for a ScoreConfig): bounds only for NUMERIC,
// categories only for CATEGORICAL (unique labels and values), BOOLEAN's two categories fixed by the server.
import type { ValidationIssue } from '../../platform/validation/validation-issue.ts';
import type { ConfigCategory, ScoreConfigFields } from '../../platform/store/repos/score-configs.ts';

const BOOLEAN_CATEGORIES: ConfigCategory[] = [
  { label: 'True', value: 1 },
  { label: 'False', value: 0 },
];

function repeated<T>(values: readonly T[]): T | undefined {
  return values.find((v, i) => values.indexOf(v) !== i);
}

/** The problems of a config as the client gave it (a BOOLEAN config's categories not set yet). */
export function scoreConfigIssues(c: ScoreConfigFields): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (c.dataType !== 'NUMERIC') {
    for (const field of ['minValue', 'maxValue'] as const)
      if (c[field] !== null) issues.push({ path: [field], message: `is only for NUMERIC configs, not ${c.dataType}` });
  } else if (c.minValue !== null && c.maxValue !== null && c.maxValue <= c.minValue) {
    issues.push({ path: ['maxValue'], message: 'must be greater than minValue' });
  }
  if (c.dataType === 'CATEGORICAL') {
    const categories = c.categories ?? [];
    if (categories.length === 0)
      issues.push({ path: ['categories'], message: 'must list at least one category for a CATEGORICAL config' });
    const label = repeated(categories.map((x) => x.label));
    if (label !== undefined)
      issues.push({ path: ['categories'], message: `must have unique labels: ${JSON.stringify(label)} is repeated` });
    const value = repeated(categories.map((x) => x.value));
    if (value !== undefined)
      issues.push({ path: ['categories'], message: `must have unique values: ${value} is repeated` });
  } else if (c.categories !== null) {
    const message =
      c.dataType === 'BOOLEAN'
        ? 'are set by the server for a BOOLEAN config (True = 1, False = 0)'
        : `are only for CATEGORICAL configs, not ${c.dataType}`;
    issues.push({ path: ['categories'], message });
  }
  return issues;
}

/** The config as stored: a BOOLEAN config gets its two categories. */
export const withServerCategories = (c: ScoreConfigFields): ScoreConfigFields =>
  c.dataType === 'BOOLEAN' ? { ...c, categories: BOOLEAN_CATEGORIES } : c;

/** The client's view of a stored config, for a PATCH merged over it: a BOOLEAN config's categories are not its own. */
export const withoutServerCategories = (c: ScoreConfigFields): ScoreConfigFields =>
  c.dataType === 'BOOLEAN' ? { ...c, categories: null } : c;

/** The config as stored, or the problems of the one the client gave. */
export function storableScoreConfig(
  c: ScoreConfigFields,
): { config: ScoreConfigFields } | { issues: ValidationIssue[] } {
  const issues = scoreConfigIssues(c);
  return issues.length > 0 ? { issues } : { config: withServerCategories(c) };
}

/** What a create request gives, with Langfuse's defaults for the rest (active, no bounds, categories or description). */
export type NewScoreConfig = Pick<ScoreConfigFields, 'name' | 'dataType'> &
  Partial<Pick<ScoreConfigFields, 'minValue' | 'maxValue' | 'categories' | 'description'>>;

export const newScoreConfigFields = (b: NewScoreConfig): ScoreConfigFields => ({
  name: b.name,
  dataType: b.dataType,
  isArchived: false,
  minValue: b.minValue ?? null,
  maxValue: b.maxValue ?? null,
  categories: b.categories ?? null,
  description: b.description ?? null,
});
