// Where the CPU goes while the observability bench runs, in cores: the service process, this process (the load
// generator), the PostgreSQL backends connected to the bench's database, and the rest of the machine (PostgreSQL's
// shared processes such as the WAL writer, and whatever else runs there: other sessions make every figure noisy).
import { processTicks, systemTicks } from '../processes.ts';
import type { BenchStore } from './bench-store.ts';

/** USER_HZ, the unit of /proc/PID/stat and /proc/stat. */
const TICKS_PER_SECOND = 100;

export interface CpuMark {
  at: number;
  service: number;
  load: number;
  /** CPU ticks of each backend connected to the bench's database (read from /proc: a local server only). */
  backends: Map<number, number>;
  busy: number;
}

export interface CpuSplit {
  seconds: number;
  serviceCores: number;
  loadCores: number;
  postgresCores: number;
  otherCores: number;
}

export async function cpuMark(store: BenchStore): Promise<CpuMark> {
  const pids = await store.client.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
  );
  const own = process.cpuUsage();
  return {
    at: performance.now(),
    service: store.service.cpuSeconds(),
    load: (own.user + own.system) / 1e6,
    backends: new Map(pids.rows.map((r) => [r.pid, processTicks(r.pid)])),
    busy: (systemTicks()?.busy ?? Number.NaN) / TICKS_PER_SECOND,
  };
}

/** A backend that ended in between is not counted; one that started in between counts from its start. */
export function cpuBetween(a: CpuMark, b: CpuMark): CpuSplit {
  const seconds = (b.at - a.at) / 1000;
  let ticks = 0;
  for (const [pid, now] of b.backends) ticks += now - (a.backends.get(pid) ?? 0);
  const serviceCores = (b.service - a.service) / seconds;
  const loadCores = (b.load - a.load) / seconds;
  const postgresCores = ticks / TICKS_PER_SECOND / seconds;
  return {
    seconds,
    serviceCores,
    loadCores,
    postgresCores,
    otherCores: Math.max(0, (b.busy - a.busy) / seconds - serviceCores - loadCores - postgresCores),
  };
}
