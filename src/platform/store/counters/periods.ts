// Budget period ids, computed the same way here and in the Redis scripts (redis-scripts.ts): UTC calendar days and
// months. The spend ledger stores them, so a counter lost with Redis is seeded again from the ledger.
import type { BudgetPeriod } from './counters.ts';

export function periodId(period: BudgetPeriod, epochMs: number): string {
  if (period === 'total') return 'total';
  if (period === 'daily') return `d${Math.floor(epochMs / 86_400_000)}`;
  const d = new Date(epochMs);
  return `m${String(d.getUTCFullYear()).padStart(4, '0')}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The period an id was made for. */
export function periodOfId(id: string): BudgetPeriod {
  return id === 'total' ? 'total' : id.startsWith('d') ? 'daily' : 'monthly';
}

/** How long a period counter is kept after its last write: past its period's end; `total` is re-seeded when gone. */
export const PERIOD_TTL_MS: Record<BudgetPeriod, number> = {
  total: 7 * 86_400_000,
  daily: 2 * 86_400_000,
  monthly: 32 * 86_400_000,
};

/** Minute counters outlive their minute so a settlement arriving late still finds its window. */
export const MINUTE_TTL_MS = 180_000;
