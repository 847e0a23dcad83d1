// Runs the built-in detectors of policies over a text: inline for short texts, in a worker thread for long ones,
// where a scan would hold the event loop far longer than the thread hop costs (threshold: docs/decisions.md).
import type { Finding } from './detectors/types.ts';
import type { WorkerPool } from '../../src/plugin-api/index.ts';
import type { Policy } from './policies.ts';

/** One list of findings per policy, in order. */
export type LocalScan = (policies: readonly Policy[], text: string) => Promise<Finding[][]>;

export function localScan(pool: WorkerPool, workerThresholdChars: number): LocalScan {
  return async (policies, text) =>
    text.length < workerThresholdChars
      ? policies.map((p) => p.scan(text))
      : pool.run('scanText', { policies: policies.map((p) => [...p.specs]), text });
}
