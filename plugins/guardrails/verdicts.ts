// What the verdicts do to a request: refuse it (block, fail closed) and record facts for the trace in
// ctx.annotations. Only detector names and counts are recorded, never the text that matched.
import { GatewayError, type RequestContext } from '../../src/plugin-api/index.ts';
import { blocks, type PolicyVerdict } from './evaluate.ts';

export type Where = 'prompt' | 'response';

function append(ctx: RequestContext, key: string, entries: unknown[]): void {
  if (entries.length === 0) return;
  const list = ctx.annotations[key];
  ctx.annotations[key] = Array.isArray(list) ? [...list, ...entries] : entries;
}

const findingsOf = (v: PolicyVerdict, where: Where) =>
  v.findings.map((f) => ({ policy: v.policy.name, detector: f.detector, where, count: f.count }));
const unavailableOf = (v: PolicyVerdict, where: Where) =>
  v.unavailable.map((u) => ({ policy: v.policy.name, service: u.service, where, reason: u.reason }));

/**
 * Records every verdict, then refuses the request: a violation of a block policy first (400; a retry would be
 * refused again), else a fail-closed policy whose service did not answer (503).
 */
export function enforce(ctx: RequestContext, where: Where, verdicts: readonly PolicyVerdict[]): void {
  append(
    ctx,
    'guardrails.flagged',
    verdicts.filter((v) => v.policy.mode === 'flag').flatMap((v) => findingsOf(v, where)),
  );
  append(
    ctx,
    'guardrails.unavailable',
    verdicts.flatMap((v) => unavailableOf(v, where)),
  );
  const blocking = verdicts.find(blocks);
  if (blocking) {
    ctx.annotations['guardrails.blocked'] = findingsOf(blocking, where);
    throw new GatewayError('guardrail_blocked', blocking.policy.blockedMessage);
  }
  const failing = verdicts.find((v) => v.policy.failClosed && v.unavailable.length > 0);
  if (failing) {
    throw new GatewayError(
      'guardrail_unavailable',
      `Guardrail checks are unavailable: a detection service did not answer. Retry shortly.`,
    );
  }
}

export interface StreamVerdict {
  /**
   * violation: a block policy matched (a stream cannot be refused once started); incomplete: a service did not
   * answer, or the check could not run (`error`).
   */
  verdict: 'clean' | 'flagged' | 'violation' | 'incomplete';
  findings: { policy: string; mode: 'block' | 'flag'; detector: string; count: number }[];
  chars: number;
  truncated?: true;
  error?: string;
}

/** The verdict on a streamed answer, recorded as `guardrails.stream_verdict`; it never ends the request. */
export function recordStreamVerdict(
  ctx: RequestContext,
  checked: readonly PolicyVerdict[] | GatewayError,
  chars: number,
  truncated: boolean,
): void {
  const verdicts = checked instanceof GatewayError ? [] : checked;
  const findings = verdicts.flatMap((v) =>
    v.findings.map((f) => ({ policy: v.policy.name, mode: v.policy.mode, detector: f.detector, count: f.count })),
  );
  append(
    ctx,
    'guardrails.unavailable',
    verdicts.flatMap((v) => unavailableOf(v, 'response')),
  );
  const verdict: StreamVerdict = {
    verdict: verdicts.some(blocks)
      ? 'violation'
      : findings.length > 0
        ? 'flagged'
        : verdicts.some((v) => v.unavailable.length > 0)
          ? 'incomplete'
          : 'clean',
    findings,
    chars,
  };
  if (truncated) verdict.truncated = true;
  if (checked instanceof GatewayError) {
    verdict.verdict = 'incomplete';
    verdict.error = checked.code;
  }
  ctx.annotations['guardrails.stream_verdict'] = verdict;
}
