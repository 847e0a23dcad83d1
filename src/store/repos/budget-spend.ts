// The budget spend ledger (002_budget_spend.sql).
import type { Queryable } from '../database.ts';

export interface SpendRow {
  budgetId: string;
  periodId: string;
  requestId: string;
  projectId: string;
  usdNano: number;
}

/** Inserts rows, skipping any already stored (same budget, period and request). */
export async function insertSpend(db: Queryable, rows: readonly SpendRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO budget_spend (budget_id, period_id, request_id, project_id, usd_nano)
     SELECT r.budget_id, r.period_id, r.request_id, r.project_id, r.usd_nano
       FROM jsonb_to_recordset($1::text::jsonb) AS r(budget_id text, period_id text, request_id text, project_id text, usd_nano bigint)
     ON CONFLICT DO NOTHING`,
    [JSON.stringify(rows.map((r) => ({ budget_id: r.budgetId, period_id: r.periodId, request_id: r.requestId, project_id: r.projectId, usd_nano: r.usdNano })))],
  );
}

/** Nano-USD recorded against a budget in a period. */
export async function spentInPeriod(db: Queryable, budgetId: string, periodId: string): Promise<number> {
  const r = await db.query<{ total: unknown }>('SELECT COALESCE(sum(usd_nano), 0) AS total FROM budget_spend WHERE budget_id = $1 AND period_id = $2', [budgetId, periodId]);
  return Number(r.rows[0].total);
}
