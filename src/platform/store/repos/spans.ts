// Spans written through the REST API are observations of type SPAN (traces.ts holds the insert and the reads).
import type { Queryable } from '../database.ts';
import { iso } from './rows.ts';

export interface SpanTiming {
  traceId: string;
  startTime: string;
  endTime: string | null;
  status: string | null;
}

/** Timing and status of an observation, its row locked until the transaction ends (ending reads, then writes). */
export async function lockSpan(tx: Queryable, projectId: string, id: string): Promise<SpanTiming | undefined> {
  const r = await tx.query<{ trace_id: string; start_time: unknown; end_time: unknown; status: string | null }>(
    'SELECT trace_id, start_time, end_time, status FROM observations WHERE project_id = $1 AND id = $2 FOR UPDATE',
    [projectId, id],
  );
  const row = r.rows[0];
  return row
    ? { traceId: row.trace_id, startTime: iso(row.start_time)!, endTime: iso(row.end_time) ?? null, status: row.status }
    : undefined;
}
