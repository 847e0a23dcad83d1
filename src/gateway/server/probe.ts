// /health and /ready, answered the same way on both listeners (docs/operations.md, Probes).

export interface Health {
  ok: boolean;
  ready: boolean;
  reason?: string;
}

export type ProbePath = '/health' | '/ready';

export function probeResult(path: ProbePath, h: Health): { status: number; body: { status: string; reason?: string } } {
  const ok = path === '/health' ? h.ok : h.ready;
  return {
    status: ok ? 200 : 503,
    body: { status: ok ? 'ok' : 'unavailable', ...(ok || !h.reason ? {} : { reason: h.reason }) },
  };
}
