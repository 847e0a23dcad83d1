// Budget spend made durable. Settled costs are summed per budget and period for `flushMs`, then each sum becomes
// one ledger entry, written by a durable writer (queue, batches, retry, spill under data_dir, replay): the store
// sees a few rows a second, not one per request. A counter with no value for a period is seeded from the ledger.
import { randomUUID } from 'node:crypto';
import type { Database } from '../../platform/store/database.ts';
import { DurableWriter } from '../../platform/store/durable-writer.ts';
import { insertSpend, spentInPeriod, type SpendEntry } from '../../platform/store/repos/budget-spend.ts';
import { StoreUnavailableError, storeUnreachable } from '../../platform/store/store-unreachable.ts';
import type { Logger } from '../../platform/telemetry/logger.ts';
import type { Spend, SpendLedger } from '../../plugin-api/services.ts';

const keyOf = (budgetId: string, periodId: string) => `${budgetId}\u0000${periodId}`;

export class DurableSpendLedger implements SpendLedger {
  readonly #db: Database;
  readonly #writer: DurableWriter<SpendEntry>;
  readonly #flushMs: number;
  /** Sums not yet handed to the writer. */
  #summing = new Map<string, SpendEntry>();
  /** Handed to the writer but not yet stored: a counter seeded meanwhile must include them. */
  readonly #unstored = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;

  constructor(db: Database, options: { spillDir: string; log: Logger; flushMs?: number }) {
    this.#db = db;
    this.#flushMs = options.flushMs ?? 100;
    this.#writer = new DurableWriter<SpendEntry>({
      spillDir: options.spillDir,
      log: options.log,
      noun: 'budget spend entry',
      write: async (batch) => {
        await insertSpend(db, batch);
        for (const e of batch) this.#stored(e);
      },
      describe: (e) => ({ budgetId: e.budgetId, periodId: e.periodId, entryId: e.entryId }),
    });
  }

  start(): void {
    this.#writer.start();
  }

  async stop(deadlineMs?: number): Promise<void> {
    clearTimeout(this.#timer);
    this.#flush();
    await this.#writer.stop(deadlineMs);
  }

  record(spends: readonly Spend[]): void {
    for (const s of spends) {
      const k = keyOf(s.budgetId, s.periodId);
      const e = this.#summing.get(k);
      if (e) {
        e.usdNano += s.usdNano;
        e.requests++;
      } else this.#summing.set(k, { ...s, entryId: randomUUID(), requests: 1 });
    }
    this.#timer ??= setTimeout(() => this.#flush(), this.#flushMs);
  }

  async spent(budgetId: string, periodId: string): Promise<number> {
    const k = keyOf(budgetId, periodId);
    const stored = await spentInPeriod(this.#db, budgetId, periodId).catch((err: unknown) => {
      if (!storeUnreachable(err)) throw err;
      throw new StoreUnavailableError(`the spend ledger cannot be read: ${(err as Error).message}`, { cause: err });
    });
    return stored + (this.#summing.get(k)?.usdNano ?? 0) + (this.#unstored.get(k) ?? 0);
  }

  #flush(): void {
    this.#timer = undefined;
    const entries = this.#summing;
    this.#summing = new Map();
    for (const [k, e] of entries) {
      this.#unstored.set(k, (this.#unstored.get(k) ?? 0) + e.usdNano);
      this.#writer.enqueue(e);
    }
  }

  #stored(e: SpendEntry): void {
    const k = keyOf(e.budgetId, e.periodId);
    const left = (this.#unstored.get(k) ?? 0) - e.usdNano;
    if (left > 0) this.#unstored.set(k, left);
    else this.#unstored.delete(k);
  }
}
