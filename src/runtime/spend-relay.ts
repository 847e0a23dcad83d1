// The spend ledger as a gateway thread sees it: settled costs go to the main thread's durable ledger (one writer for
// the process) in one message per event-loop turn, and reads of the spend so far are asked of it.
import type { MessagePort } from 'node:worker_threads';
import { StoreUnavailableError } from '../platform/store/store-unreachable.ts';
import { TurnBatch } from '../platform/workers/turn-batch.ts';
import type { Spend, SpendLedger } from '../plugin-api/services.ts';
import type { FromGatewayThread, ToGatewayThread } from './gateway-thread-messages.ts';

export class SpendRelay implements SpendLedger {
  readonly #post: (m: FromGatewayThread) => void;
  readonly #batch: TurnBatch<Spend>;
  #nextId = 1;
  readonly #asked = new Map<number, { resolve: (n: number) => void; reject: (e: Error) => void }>();

  constructor(post: (m: FromGatewayThread) => void) {
    this.#post = post;
    this.#batch = new TurnBatch((spends) => post({ type: 'spend', spends }));
  }

  record(spends: readonly Spend[]): void {
    this.#batch.add(...spends);
  }

  /** Posts what was recorded in this turn now. */
  flush(): void {
    this.#batch.flush();
  }

  spent(budgetId: string, periodId: string): Promise<number> {
    // What this thread recorded goes first, so the main thread's answer includes it.
    this.flush();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#asked.set(id, { resolve, reject });
      this.#post({ type: 'spent', id, budgetId, periodId });
    });
  }

  /** The main thread's answer to a `spent` question. */
  answered(m: Extract<ToGatewayThread, { type: 'spent' }>): void {
    const asked = this.#asked.get(m.id);
    this.#asked.delete(m.id);
    if (m.nanoUsd !== undefined) asked?.resolve(m.nanoUsd);
    else asked?.reject(m.unavailable ? new StoreUnavailableError(m.error) : new Error(m.error));
  }
}

/** The main thread's side: records a thread's spends in the ledger and answers its questions. */
export function serveSpend(
  ledger: SpendLedger,
  thread: Pick<MessagePort, 'postMessage'>,
  m: Extract<FromGatewayThread, { type: 'spend' | 'spent' }>,
): void {
  if (m.type === 'spend') return ledger.record(m.spends);
  ledger.spent(m.budgetId, m.periodId).then(
    (nanoUsd) => thread.postMessage({ type: 'spent', id: m.id, nanoUsd } satisfies ToGatewayThread),
    (err: Error) =>
      thread.postMessage({
        type: 'spent',
        id: m.id,
        error: err.message,
        unavailable: err instanceof StoreUnavailableError,
      } satisfies ToGatewayThread),
  );
}
