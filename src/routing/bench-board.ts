// Which deployments are benched (cooling down) and until when. In-process for now; the counters store
// (Redis) takes this over so that every replica agrees.

export interface BenchBoard {
  /** Epoch ms until which the deployment is benched, or 0. */
  benchedUntil(deploymentId: string, now: number): number;
  bench(deploymentId: string, untilMs: number): void;
  /** Deployments benched at `now`, with their end times, for /metrics. */
  snapshot(now: number): Record<string, number>;
}

export function memoryBenchBoard(): BenchBoard {
  const until = new Map<string, number>();
  return {
    benchedUntil(id, now) {
      const t = until.get(id);
      if (t === undefined) return 0;
      if (t <= now) {
        until.delete(id);
        return 0;
      }
      return t;
    },
    bench(id, t) {
      if ((until.get(id) ?? 0) < t) until.set(id, t);
    },
    snapshot(now) {
      const out: Record<string, number> = {};
      for (const [id, t] of until) if (t > now) out[id] = t;
      return out;
    },
  };
}
