// Budget spend made durable: settled costs go through a durable writer (queue, batches, retry, spill under
// data_dir, replay) into the ledger table; a counter with no value for a period is seeded from the ledger's sum.
import type { Database } from '../store/database.ts';
import { DurableWriter } from '../store/durable-writer.ts';
import { insertSpend, spentInPeriod, type SpendRow } from '../store/repos/budget-spend.ts';
import type { Logger } from '../telemetry/logger.ts';

export interface SpendLedger {
  /** Queues rows for the ledger; never blocks, never throws. */
  record(rows: readonly SpendRow[]): void;
  /** Nano-USD stored for a budget and period, plus rows of it still queued in this process. */
  spent(budgetId: string, periodId: string): Promise<number>;
}

export class DurableSpendLedger implements SpendLedger {
  readonly #db: Database;
  readonly #writer: DurableWriter<SpendRow>;
  /** Queued but not yet stored, per `budget\u0000period`: a counter seeded meanwhile must include them. */
  readonly #pending = new Map<string, number>();

  constructor(db: Database, options: { spillDir: string; log: Logger }) {
    this.#db = db;
    this.#writer = new DurableWriter<SpendRow>({
      ...options,
      noun: 'budget spend row',
      write: async (batch) => {
        await insertSpend(db, batch);
        for (const r of batch) this.#settle(r);
      },
      describe: (r) => ({ budgetId: r.budgetId, requestId: r.requestId }),
    });
  }

  start(): void {
    this.#writer.start();
  }

  stop(deadlineMs?: number): Promise<void> {
    return this.#writer.stop(deadlineMs);
  }

  record(rows: readonly SpendRow[]): void {
    for (const r of rows) {
      const k = `${r.budgetId}\u0000${r.periodId}`;
      this.#pending.set(k, (this.#pending.get(k) ?? 0) + r.usdNano);
      this.#writer.enqueue(r);
    }
  }

  async spent(budgetId: string, periodId: string): Promise<number> {
    return (await spentInPeriod(this.#db, budgetId, periodId)) + (this.#pending.get(`${budgetId}\u0000${periodId}`) ?? 0);
  }

  #settle(r: SpendRow): void {
    const k = `${r.budgetId}\u0000${r.periodId}`;
    const left = (this.#pending.get(k) ?? 0) - r.usdNano;
    if (left > 0) this.#pending.set(k, left);
    else this.#pending.delete(k);
  }
}
