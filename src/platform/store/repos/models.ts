// A project's own models and prices (public API /models, table `models`) and the model type every price is read from
// (docs/public-api.md "Models — /api/public/models"); built-ins are not stored but have the same shape
// (src/platform/pricing/builtin-models.ts).
import type { Queryable } from '../database.ts';
import { iso, json } from './rows.ts';

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

export type NewModel = Omit<ModelDefinition, 'createdAt'> & { projectId: string };

function toModel(r: Record<string, any>): ModelDefinition {
  return {
    id: r.id,
    projectId: r.project_id,
    modelName: r.model_name,
    matchPattern: r.match_pattern,
    startDate: iso(r.start_date) ?? null,
    unit: r.unit,
    tokenizerId: r.tokenizer_id,
    tokenizerConfig: r.tokenizer_config,
    pricingTiers: r.pricing_tiers,
    createdAt: iso(r.created_at)!,
  };
}

export async function insertModel(db: Queryable, m: NewModel): Promise<ModelDefinition> {
  const r = await db.query(
    `INSERT INTO models (id, project_id, model_name, match_pattern, start_date, unit, tokenizer_id, tokenizer_config, pricing_tiers)
     VALUES ($1, $2, $3, $4, $5::timestamptz, $6, $7, $8::text::jsonb, $9::text::jsonb) RETURNING *`,
    [
      m.id,
      m.projectId,
      m.modelName,
      m.matchPattern,
      m.startDate,
      m.unit,
      m.tokenizerId,
      json(m.tokenizerConfig ?? undefined),
      json(m.pricingTiers),
    ],
  );
  return toModel(r.rows[0]);
}

/** Every model of the project, newest first (ties on id). */
export async function listModels(db: Queryable, projectId: string): Promise<ModelDefinition[]> {
  const r = await db.query('SELECT * FROM models WHERE project_id = $1 ORDER BY created_at DESC, id DESC', [projectId]);
  return r.rows.map(toModel);
}

export async function getModel(db: Queryable, projectId: string, id: string): Promise<ModelDefinition | undefined> {
  const r = await db.query('SELECT * FROM models WHERE project_id = $1 AND id = $2', [projectId, id]);
  return r.rows[0] ? toModel(r.rows[0]) : undefined;
}

/** True when a model was deleted. */
export async function deleteModel(db: Queryable, projectId: string, id: string): Promise<boolean> {
  const r = await db.query('DELETE FROM models WHERE project_id = $1 AND id = $2', [projectId, id]);
  return r.rowCount > 0;
}
