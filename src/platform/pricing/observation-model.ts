// The model an observation read names (Langfuse's `modelId` and unit prices): the model that priced it, while it is
// still there, else the one its model name matches now (the project's models first, then the built-ins), as Langfuse
// matches every observation with a model, whether or not its events gave the cost.
import type { Queryable } from '../store/database.ts';
import { BUILTIN_MODELS } from './builtin-models.ts';
import { defaultTier, listModels, type ModelDefinition } from '../store/repos/models.ts';
import { modelMatcher } from './model-matcher.ts';

export type ObservationModelOf = (o: {
  model: string | null;
  costModelId: string | null;
}) => ModelDefinition | undefined;

/** Reads the project's models once; the answer resolves the model of each observation of one response. */
export async function observationModels(db: Queryable, projectId: string): Promise<ObservationModelOf> {
  const models = await listModels(db, projectId);
  const byId = new Map([...models, ...BUILTIN_MODELS].map((m) => [m.id, m]));
  const match = modelMatcher(models);
  return (o) =>
    (o.costModelId === null ? undefined : byId.get(o.costModelId)) ?? (o.model === null ? undefined : match(o.model));
}

/** Langfuse's flat unit prices of a model: its default tier's `input`, `output` and `total` prices, else null. */
export function unitPrices(model: ModelDefinition | undefined): {
  inputPrice: number | null;
  outputPrice: number | null;
  totalPrice: number | null;
} {
  const prices = model ? (defaultTier(model)?.prices ?? {}) : {};
  return { inputPrice: prices.input ?? null, outputPrice: prices.output ?? null, totalPrice: prices.total ?? null };
}
