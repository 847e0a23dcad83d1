// The averages a dataset run is compared by: over its items, the latency and cost of their traces and each score's
// numeric value (NUMERIC and BOOLEAN scores; categorical and text scores have no average).
import type { RunItemResult } from '../../src/platform/store/repos/dataset-summaries.ts';

export interface RunSummary {
  itemCount: number;
  /** Null when no item's trace has ended. */
  avgLatencyMs: number | null;
  avgCost: number | null;
  /** Score name → average value, in the order the names first appear. */
  avgScores: Record<string, number>;
}

const average = (values: number[]) =>
  values.length === 0 ? null : values.reduce((sum, v) => sum + v, 0) / values.length;

function summarizeRun(results: readonly RunItemResult[]): RunSummary {
  const scores = new Map<string, number[]>();
  for (const r of results)
    for (const s of r.scores)
      if (s.value !== null && s.dataType !== 'CATEGORICAL')
        scores.set(s.name, [...(scores.get(s.name) ?? []), s.value]);
  return {
    itemCount: results.length,
    avgLatencyMs: average(results.flatMap((r) => r.latencyMs ?? [])),
    avgCost: average(results.flatMap((r) => r.cost ?? [])),
    avgScores: Object.fromEntries([...scores].map(([name, values]) => [name, average(values)!])),
  };
}

/** Summaries per run id; a run without items has a zero count and no averages. */
export function summarizeRuns(runIds: readonly string[], results: readonly RunItemResult[]): Map<string, RunSummary> {
  return new Map(runIds.map((id) => [id, summarizeRun(results.filter((r) => r.runId === id))]));
}
