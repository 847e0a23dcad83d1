// How one failed attempt is judged (docs/architecture.md "Routing, retries and the bench", docs/decisions.md "Routing
// outcomes").
import type { AttemptOutcome, UpstreamError } from '../../src/plugin-api/index.ts';

export interface FailureVerdict {
  outcome: AttemptOutcome;
  /** Another attempt (same or other deployment, or the fallback group) may succeed. */
  tryElsewhere: boolean;
  /** The deployment looks unhealthy and should be benched. */
  healthSignal: boolean;
}

const RETRYABLE_STATUS = new Set([408, 409, 429, 529]);
// The deployment, not the request, is at fault: bad provider key or unknown model there.
const DEPLOYMENT_FAULT_STATUS = new Set([401, 403, 404]);

export function judgeFailure(err: UpstreamError): FailureVerdict {
  switch (err.kind) {
    case 'timeout':
      return { outcome: 'timeout', tryElsewhere: true, healthSignal: true };
    case 'connect':
      return { outcome: 'retryable', tryElsewhere: true, healthSignal: true };
    case 'invalid_response':
      return { outcome: 'failed', tryElsewhere: true, healthSignal: false };
    case 'http': {
      const status = err.status ?? 502;
      if (RETRYABLE_STATUS.has(status) || status >= 500) {
        return { outcome: 'retryable', tryElsewhere: true, healthSignal: status === 429 || status >= 500 };
      }
      if (DEPLOYMENT_FAULT_STATUS.has(status))
        return { outcome: 'failed', tryElsewhere: true, healthSignal: status !== 403 };
      return { outcome: 'failed', tryElsewhere: false, healthSignal: false };
    }
  }
}
