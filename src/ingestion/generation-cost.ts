// Calculated cost of ingested observations (reference §4): one with a model and usage whose events give no cost gets
// its costDetails from the matched model (model-matcher.ts, model-cost.ts). A cost an event gave is authoritative and
// stays, also when a later event changes the usage; a calculated one is recomputed. `observations.cost_model_id` tells
// the two apart: the model that priced the row, or null.
import { costDetailsOf as modelCostDetails, selectTier } from '../pricing/model-cost.ts';
import type { ModelMatcher } from '../pricing/model-matcher.ts';
import type { ObservationRow } from '../store/repos/observations.ts';
import type { IngestionEvent } from './event-schema.ts';
import { costDetailsOf, totalOf } from './usage.ts';

/** Observation id → the model that priced it now, or null (cost from the events, or no longer calculated). */
export type CostModels = Map<string, string | null>;

/**
 * Sets costDetails and totalCost of the rows (merged, not yet written) that the matched model prices. `stored` holds
 * the cost model of each row already stored (absent: a new row).
 */
export function priceObservations(
  rows: ObservationRow[],
  events: ReadonlyMap<string, readonly IngestionEvent[]>,
  match: ModelMatcher,
  stored: CostModels,
): CostModels {
  const decided: CostModels = new Map();
  for (const row of rows) {
    const wasCalculated = (stored.get(row.id) ?? null) !== null;
    if (events.get(row.id)?.some((e) => costDetailsOf(e.body) !== undefined)) {
      if (wasCalculated) decided.set(row.id, null);
      continue;
    }
    const hasEventCost = stored.has(row.id) && !wasCalculated && Object.keys(row.costDetails ?? {}).length > 0;
    if (hasEventCost || !row.usageDetails || !row.model) continue;
    const model = match(row.model);
    const tier =
      model &&
      selectTier(model, { usage: row.usageDetails, modelParameters: row.modelParameters, metadata: row.attributes });
    const cost = tier && modelCostDetails(tier, row.usageDetails);
    if (cost) {
      row.costDetails = cost;
      row.totalCost = totalOf(cost);
      decided.set(row.id, model!.id);
    } else if (wasCalculated) {
      row.costDetails = {};
      row.totalCost = 0;
      decided.set(row.id, null);
    }
  }
  return decided;
}
