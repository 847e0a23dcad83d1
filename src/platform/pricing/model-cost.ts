// The cost of one observation from its matched model (docs/public-api.md "Models — /api/public/models", Generation
// cost): the first pricing tier (ascending priority) whose conditions all hold, else the default; per usage key price ×
// units; total = the `total` key's cost when the tier prices `total`, else the sum.
import { compilePattern } from './match-pattern.ts';
import type { ModelDefinition, PricingTier, TierCondition } from '../store/repos/models.ts';

export interface CostInput {
  usage: Record<string, number>;
  modelParameters?: Record<string, unknown> | null;
  metadata?: Record<string, unknown>;
}

const compare = {
  gt: (a: number, b: number) => a > b,
  gte: (a: number, b: number) => a >= b,
  lt: (a: number, b: number) => a < b,
  lte: (a: number, b: number) => a <= b,
  eq: (a: number, b: number) => a === b,
  neq: (a: number, b: number) => a !== b,
};

function holds(c: TierCondition, input: CostInput): boolean {
  if ('usageDetailPattern' in c) {
    const re = compilePattern(c.usageDetailPattern, c.caseSensitive ?? false);
    const sum = Object.entries(input.usage).reduce((s, [k, n]) => (re.test(k) ? s + n : s), 0);
    return compare[c.operator](sum, c.value);
  }
  const value = (c.source === 'metadata' ? input.metadata : input.modelParameters)?.[c.key];
  return value !== undefined && value !== null && c.values.includes(String(value));
}

export function selectTier(model: ModelDefinition, input: CostInput): PricingTier | undefined {
  const conditional = model.pricingTiers.filter((t) => !t.isDefault).sort((a, b) => a.priority - b.priority);
  return (
    conditional.find((t) => t.conditions.every((c) => holds(c, input))) ?? model.pricingTiers.find((t) => t.isDefault)
  );
}

/** Cost details in USD (with `total`), or undefined when the tier prices none of the usage keys. */
export function costDetailsOf(tier: PricingTier, usage: Record<string, number>): Record<string, number> | undefined {
  const out: Record<string, number> = {};
  for (const [key, units] of Object.entries(usage)) {
    // Own keys only: a usage key such as `constructor` must not find an inherited member.
    if (Object.hasOwn(tier.prices, key)) out[key] = tier.prices[key] * units;
  }
  if (Object.keys(out).length === 0) return undefined;
  if (!Object.hasOwn(tier.prices, 'total')) out.total = Object.values(out).reduce((a, b) => a + b, 0);
  return out;
}
