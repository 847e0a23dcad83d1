// What the trace writer stores: one trace with its observations. Also what the metric rollups sum.
import type { ObservationRow } from '../../platform/store/repos/observations.ts';
import type { TraceRow } from '../../platform/store/repos/traces.ts';

export interface TraceItem {
  trace: TraceRow;
  observations: ObservationRow[];
}
