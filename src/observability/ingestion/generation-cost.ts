// Calculated cost of ingested observations (docs/public-api.md "Models — /api/public/models", Generation cost): one
// with a model and usage whose events give no cost gets its costDetails from the matched model (model-matcher.ts,
// model-cost.ts). A cost an event gave is authoritative and stays, also when a later event changes the usage; a
// calculated one is recomputed. `costModelId` tells the two apart: the model that priced the row, or null.
import { costDetailsOf as modelCostDetails, selectTier } from '../../platform/pricing/model-cost.ts';
import type { ModelMatcher } from '../../platform/pricing/model-matcher.ts';
import type { ObservationRow } from '../../platform/store/repos/observations.ts';
import type { IngestionEvent } from './event-schema.ts';
import { costDetailsOf, totalOf } from './usage.ts';

/**
 * Sets costDetails, totalCost and costModelId of the rows (merged with the stored ones, not yet written) that the
 * matched model prices, and clears a calculated cost that no longer applies, so each row is written once.
 */
export function priceObservations(
  rows: ObservationRow[],
  events: ReadonlyMap<string, readonly IngestionEvent[]>,
  match: ModelMatcher,
): void {
  for (const row of rows) {
    const wasCalculated = (row.costModelId ?? null) !== null;
    if (events.get(row.id)?.some((e) => costDetailsOf(e.body) !== undefined)) {
      row.costModelId = null;
      continue;
    }
    // Cost details on a row no model priced came from its events (a new row's only from these, handled above).
    const hasEventCost = !wasCalculated && Object.keys(row.costDetails ?? {}).length > 0;
    if (hasEventCost || !row.usageDetails || !row.model) continue;
    const model = match(row.model);
    const tier =
      model &&
      selectTier(model, { usage: row.usageDetails, modelParameters: row.modelParameters, metadata: row.attributes });
    const cost = tier && modelCostDetails(tier, row.usageDetails);
    if (cost) {
      row.costDetails = cost;
      row.totalCost = totalOf(cost);
      row.costModelId = model!.id;
    } else if (wasCalculated) {
      row.costDetails = {};
      row.totalCost = 0;
      row.costModelId = null;
    }
  }
}
