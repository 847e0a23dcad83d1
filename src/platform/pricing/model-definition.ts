// A model with prices (reference §10): a project's own (table `models`) or a built-in (builtin-models.ts).

/** Sum of the usage keys matching `usageDetailPattern`, compared with `value`. */
export interface UsageCondition {
  usageDetailPattern: string;
  operator: 'gt' | 'gte' | 'lt' | 'lte' | 'eq' | 'neq';
  value: number;
  caseSensitive?: boolean;
}

/** The observation's model parameter or metadata value `key` is one of `values`. */
export interface AttributeCondition {
  source: 'model_parameters' | 'metadata';
  key: string;
  operator: 'in';
  values: string[];
}

export type TierCondition = UsageCondition | AttributeCondition;

export interface PricingTier {
  id: string;
  name: string;
  isDefault: boolean;
  priority: number;
  conditions: TierCondition[];
  /** USD per unit, per usage key (input, output, total, input_cached_tokens, …). */
  prices: Record<string, number>;
}

export interface ModelDefinition {
  id: string;
  /** null for a built-in. */
  projectId: string | null;
  modelName: string;
  matchPattern: string;
  startDate: string | null;
  unit: string | null;
  tokenizerId: string | null;
  tokenizerConfig: unknown;
  pricingTiers: PricingTier[];
  createdAt: string;
}

export const defaultTier = (m: ModelDefinition): PricingTier | undefined => m.pricingTiers.find((t) => t.isDefault);
