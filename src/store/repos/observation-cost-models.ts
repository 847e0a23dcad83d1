// Which model priced each observation (`observations.cost_model_id`, src/ingestion/generation-cost.ts): the model's id,
// or null for a cost the events gave.
import type { Queryable } from '../database.ts';
import { json } from './rows.ts';

/** Records the pricing model of each observation id given; after the rows are written. */
export async function recordCostModels(
  tx: Queryable,
  projectId: string,
  decided: ReadonlyMap<string, string | null>,
): Promise<void> {
  if (decided.size === 0) return;
  await tx.query(
    `UPDATE observations o SET cost_model_id = x.model_id
     FROM jsonb_to_recordset($2::text::jsonb) AS x(id text, model_id text)
     WHERE o.project_id = $1 AND o.id = x.id`,
    [projectId, json([...decided].map(([id, modelId]) => ({ id, model_id: modelId })))],
  );
}
