// Datasets and their runs as the dashboard shows them: a dataset's item and run counts, and each run item's result
// (the linked trace's output, latency, cost and scores). Datasets, items and runs themselves are read with the public
// API's queries (datasets.ts, dataset-items.ts, dataset-runs.ts); the trace values come from traceSelect, so latency
// and cost read as on the trace list.
import type { Queryable } from '../database.ts';
import { iso, num } from './rows.ts';
import { traceSelect } from './traces.ts';

export interface DatasetCounts {
  /** ACTIVE items, as the public API lists them. */
  itemCount: number;
  runCount: number;
  /** When its newest run was created; null without runs. */
  lastRunAt: string | null;
}

/** Counts per dataset id; a dataset without items or runs has zeros. */
export async function countDatasetContents(
  db: Queryable,
  projectId: string,
  datasetIds: readonly string[],
): Promise<Map<string, DatasetCounts>> {
  const r = await db.query<Record<string, any>>(
    `SELECT d.id,
        (SELECT count(*) FROM dataset_items i WHERE i.project_id = d.project_id AND i.dataset_id = d.id AND i.status = 'ACTIVE') AS item_count,
        (SELECT count(*) FROM dataset_runs r WHERE r.project_id = d.project_id AND r.dataset_id = d.id) AS run_count,
        (SELECT max(r.created_at) FROM dataset_runs r WHERE r.project_id = d.project_id AND r.dataset_id = d.id) AS last_run_at
      FROM datasets d WHERE d.project_id = $1 AND d.id = ANY($2::text[])`,
    [projectId, datasetIds],
  );
  return new Map(
    r.rows.map((row) => [
      row.id,
      { itemCount: num(row.item_count), runCount: num(row.run_count), lastRunAt: iso(row.last_run_at) ?? null },
    ]),
  );
}

export interface RunItemScore {
  name: string;
  dataType: string;
  value: number | null;
  stringValue: string | null;
}

/** One run item with what its trace recorded; the trace values are null while the trace is not stored. */
export interface RunItemResult {
  runId: string;
  datasetItemId: string;
  traceId: string;
  output: unknown;
  /** End − start of the trace, in ms; null while it runs. */
  latencyMs: number | null;
  cost: number | null;
  /** The scores of its trace (and of the trace's observations), oldest first. */
  scores: RunItemScore[];
}

/**
 * The items of these runs with their traces' results, oldest first (ties on id). `withOutput: false` leaves the
 * outputs out (null), for run summaries that only average.
 */
export async function runItemResults(
  db: Queryable,
  projectId: string,
  runIds: readonly string[],
  options: { withOutput: boolean },
): Promise<RunItemResult[]> {
  if (runIds.length === 0) return [];
  const r = await db.query<Record<string, any>>(
    `SELECT ri.dataset_run_id, ri.dataset_item_id, ri.trace_id, t.id AS found, t.start_time, t.end_time, t.cost,
        ${options.withOutput ? 't.output' : 'NULL'} AS output, COALESCE(sc.scores, '[]') AS scores
      FROM dataset_run_items ri
      LEFT JOIN LATERAL (${traceSelect()} WHERE t.project_id = ri.project_id AND t.id = ri.trace_id LIMIT 1) t ON true
      LEFT JOIN LATERAL (
        SELECT json_agg(json_build_object('name', s.name, 'dataType', s.data_type, 'value', s.value,
            'stringValue', s.string_value) ORDER BY s.timestamp, s.id) AS scores
        FROM scores s WHERE s.project_id = ri.project_id AND s.trace_id = ri.trace_id
      ) sc ON true
      WHERE ri.project_id = $1 AND ri.dataset_run_id = ANY($2::text[])
      ORDER BY ri.created_at, ri.id`,
    [projectId, runIds],
  );
  return r.rows.map((row) => {
    const start = iso(row.start_time);
    const end = iso(row.end_time);
    return {
      runId: row.dataset_run_id,
      datasetItemId: row.dataset_item_id,
      traceId: row.trace_id,
      output: row.output ?? null,
      latencyMs: start && end ? Date.parse(end) - Date.parse(start) : null,
      cost: row.found === null ? null : num(row.cost),
      scores: typeof row.scores === 'string' ? JSON.parse(row.scores) : row.scores,
    };
  });
}
