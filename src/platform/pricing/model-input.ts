// POST /api/public/models: the rules across fields that the body schema cannot say (docs/public-api.md
// "Models — /api/public/models"). Flat prices (`inputPrice`/`outputPrice`, or `totalPrice` alone) become one default
// tier; `pricingTiers` need exactly one default tier (priority 0, no conditions), unique names and priorities, a price
// in every tier, and conditions on the others.
import { randomUUID } from 'node:crypto';
import type { ValidationIssue } from '../validation/validation-issue.ts';
import { patternError } from './match-pattern.ts';
import type { NewModel, PricingTier, TierCondition } from '../store/repos/models.ts';

export interface ModelCreateBody {
  modelName: string;
  matchPattern: string;
  startDate?: string | null;
  unit?: string | null;
  inputPrice?: number | null;
  outputPrice?: number | null;
  totalPrice?: number | null;
  tokenizerId?: string | null;
  tokenizerConfig?: unknown;
  pricingTiers?: (Omit<PricingTier, 'id'> & { conditions: TierCondition[] })[] | null;
}

function flatTier(b: ModelCreateBody, issues: ValidationIssue[]): PricingTier[] {
  const prices: Record<string, number> = {};
  for (const [key, value] of [
    ['input', b.inputPrice],
    ['output', b.outputPrice],
    ['total', b.totalPrice],
  ] as const)
    if (value != null) prices[key] = value;
  if (prices.total !== undefined && (prices.input !== undefined || prices.output !== undefined)) {
    issues.push({ path: ['totalPrice'], message: 'cannot be combined with inputPrice or outputPrice' });
  }
  if (Object.keys(prices).length === 0)
    issues.push({ path: [], message: 'give inputPrice and/or outputPrice, totalPrice, or pricingTiers' });
  return [{ id: randomUUID(), name: 'Standard', isDefault: true, priority: 0, conditions: [], prices }];
}

function checkTiers(tiers: NonNullable<ModelCreateBody['pricingTiers']>, issues: ValidationIssue[]): PricingTier[] {
  const defaults = tiers.filter((t) => t.isDefault);
  if (defaults.length !== 1)
    issues.push({
      path: ['pricingTiers'],
      message: `must have exactly one default tier (isDefault: true), found ${defaults.length}`,
    });
  const seen = { name: new Set<string>(), priority: new Set<number>() };
  tiers.forEach((t, i) => {
    const at = (...rest: (string | number)[]) => ['pricingTiers', i, ...rest];
    if (t.isDefault && t.priority !== 0)
      issues.push({ path: at('priority'), message: 'must be 0 for the default tier' });
    if (t.isDefault && t.conditions.length > 0)
      issues.push({ path: at('conditions'), message: 'must be empty for the default tier' });
    if (!t.isDefault && t.conditions.length === 0)
      issues.push({ path: at('conditions'), message: 'must not be empty for a tier that is not the default' });
    if (Object.keys(t.prices).length === 0) issues.push({ path: at('prices'), message: 'must set at least one price' });
    if (seen.name.has(t.name)) issues.push({ path: at('name'), message: `repeats the tier name "${t.name}"` });
    if (seen.priority.has(t.priority))
      issues.push({ path: at('priority'), message: `repeats the priority ${t.priority}` });
    seen.name.add(t.name);
    seen.priority.add(t.priority);
    t.conditions.forEach((c, j) => {
      const error = 'usageDetailPattern' in c ? patternError(c.usageDetailPattern) : undefined;
      if (error)
        issues.push({
          path: at('conditions', j, 'usageDetailPattern'),
          message: `is not a valid regular expression: ${error}`,
        });
    });
  });
  return tiers.map((t) => ({
    id: randomUUID(),
    name: t.name,
    isDefault: t.isDefault,
    priority: t.priority,
    conditions: t.conditions,
    prices: t.prices,
  }));
}

export function modelOf(projectId: string, b: ModelCreateBody): { model: NewModel } | { issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const patternProblem = patternError(b.matchPattern);
  if (patternProblem)
    issues.push({ path: ['matchPattern'], message: `is not a valid regular expression: ${patternProblem}` });
  const flat = b.inputPrice != null || b.outputPrice != null || b.totalPrice != null;
  if (flat && b.pricingTiers)
    issues.push({ path: ['pricingTiers'], message: 'cannot be combined with inputPrice, outputPrice or totalPrice' });
  const pricingTiers = b.pricingTiers ? checkTiers(b.pricingTiers, issues) : flatTier(b, issues);
  if (issues.length > 0) return { issues };
  return {
    model: {
      id: randomUUID(),
      projectId,
      modelName: b.modelName,
      matchPattern: b.matchPattern,
      // A date alone (`2023-12-01`, as Langfuse takes it) is midnight UTC, not midnight where the database runs.
      startDate: b.startDate == null ? null : new Date(b.startDate).toISOString(),
      unit: b.unit ?? null,
      tokenizerId: b.tokenizerId ?? null,
      tokenizerConfig: b.tokenizerConfig ?? null,
      pricingTiers,
    },
  };
}
