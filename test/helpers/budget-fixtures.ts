// Prices and requests whose costs read as token counts, for the budget and rate-limit plugin tests, and what the spend
// ledger holds for a budget.
import type { Usage } from '../../src/plugin-api/index.ts';
import type { Queryable } from '../../src/platform/store/database.ts';

export const key = (name: string) => `sk-test-${name}-0123456789abcdef`;
/** One token costs $0.001 in and out, so costs read as token counts. */
export const PRICE = { input_per_mtok: 1000, output_per_mtok: 1000 };
/** Prompt estimate of one "Hello" message. */
export const HELLO_PROMPT = 9;
/** max_tokens that makes a "Hello" request reserve exactly 100 tokens, and its worst case $0.10. */
export const TENTH = 100 - HELLO_PROMPT;
export const NANO = 1e9;
/** What an answered request uses: 29 tokens, $0.029. */
export const USED: Usage = { prompt_tokens: 9, completion_tokens: 20, total_tokens: 29 };

/** What the spend ledger holds for one budget: its request count and nano-USD, summed over its periods. */
export async function ledgerSpend(db: Queryable, budgetId: string): Promise<{ requests: number; nano: number }> {
  const r = await db.query<{ requests: unknown; nano: unknown }>(
    'SELECT COALESCE(sum(requests), 0) AS requests, COALESCE(sum(usd_nano), 0) AS nano FROM budget_spend WHERE budget_id = $1',
    [budgetId],
  );
  return { requests: Number(r.rows[0].requests), nano: Number(r.rows[0].nano) };
}
