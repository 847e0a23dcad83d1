// The budget spend ledger (002_budget_spend.sql).
import type { Queryable } from '../database.ts';

/** Spend of one or more requests against one budget in one period. */
export interface SpendEntry {
  budgetId: string;
  periodId: string;
  entryId: string;
  projectId: string;
  usdNano: number;
  requests: number;
}

/** Inserts entries, skipping any already stored (same budget, period and entry id). */
export async function insertSpend(db: Queryable, entries: readonly SpendEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db.query(
    `INSERT INTO budget_spend (budget_id, period_id, entry_id, project_id, usd_nano, requests)
     SELECT e.budget_id, e.period_id, e.entry_id, e.project_id, e.usd_nano, e.requests
       FROM jsonb_to_recordset($1::text::jsonb) AS e(budget_id text, period_id text, entry_id text, project_id text, usd_nano bigint, requests integer)
     ON CONFLICT DO NOTHING`,
    [
      JSON.stringify(
        entries.map((e) => ({
          budget_id: e.budgetId,
          period_id: e.periodId,
          entry_id: e.entryId,
          project_id: e.projectId,
          usd_nano: e.usdNano,
          requests: e.requests,
        })),
      ),
    ],
  );
}

/** Nano-USD recorded against a budget in a period. */
export async function spentInPeriod(db: Queryable, budgetId: string, periodId: string): Promise<number> {
  const r = await db.query<{ total: unknown }>(
    'SELECT COALESCE(sum(usd_nano), 0) AS total FROM budget_spend WHERE budget_id = $1 AND period_id = $2',
    [budgetId, periodId],
  );
  return Number(r.rows[0].total);
}
