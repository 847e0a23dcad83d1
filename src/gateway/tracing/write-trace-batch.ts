// The trace writer's batch: the traces and their observations in one statement, as before rollups; once it succeeded,
// the batch's gateway traces go to the rollups (rollup-flusher.ts). The durable writer writes an item until a
// write succeeds, and never again after that, so each trace counts once: a write that failed (even after its
// statement committed, a lost reply) added nothing, and its retry finds the traces stored and counts them then.
import type { RollupFlusher } from './rollup-flusher.ts';
import type { Queryable } from '../../platform/store/database.ts';
import { insertTraceBatch } from '../../platform/store/repos/trace-batch.ts';
import type { TraceItem } from './trace-item.ts';
import { batchJson } from './trace-text.ts';

export async function writeTraceBatch(
  db: Queryable,
  batch: readonly TraceItem[],
  rollups: Pick<RollupFlusher, 'add'>,
): Promise<void> {
  await insertTraceBatch(
    db,
    batch.map((b) => b.trace),
    batch.flatMap((b) => b.observations),
    () => batchJson(batch),
  );
  rollups.add(oncePerTrace(batch));
}

/** The batch with a trace enqueued twice (stored once) kept once. */
function oncePerTrace(batch: readonly TraceItem[]): readonly TraceItem[] {
  const seen = new Set<string>();
  const out: TraceItem[] = [];
  for (const item of batch) {
    const key = `${item.trace.projectId}\u0000${item.trace.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(item);
  }
  return out.length === batch.length ? batch : out;
}
