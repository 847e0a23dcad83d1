// Runs policies over one text: built-in detectors first, then the detection services unless a block policy has
// already found a violation (the request is refused either way, so the network is spared).
import { DetectionUnavailable } from './detectors/detection-http.ts';
import type { Finding, RemoteDetector } from './detectors/types.ts';
import type { LocalScan } from './local-scan.ts';
import type { Policy } from './policies.ts';

export interface Unavailable {
  service: string;
  reason: string;
}

export interface PolicyVerdict {
  policy: Policy;
  findings: Finding[];
  unavailable: Unavailable[];
}

async function ask(remote: RemoteDetector, text: string, timeoutMs: number): Promise<Finding[] | Unavailable> {
  try {
    return await remote.check(text, timeoutMs);
  } catch (err) {
    if (err instanceof DetectionUnavailable) return { service: remote.service, reason: err.reason };
    throw err;
  }
}

async function askServices(verdict: PolicyVerdict, text: string): Promise<void> {
  const answers = await Promise.all(verdict.policy.remote.map((r) => ask(r, text, verdict.policy.timeoutMs)));
  for (const a of answers) {
    if (Array.isArray(a)) verdict.findings.push(...a);
    else verdict.unavailable.push(a);
  }
}

export const blocks = (v: PolicyVerdict) => v.policy.mode === 'block' && v.findings.length > 0;

/** One verdict per policy, in policy order. An empty text is clean without asking anything. */
export async function evaluate(policies: readonly Policy[], text: string, scan: LocalScan): Promise<PolicyVerdict[]> {
  if (text === '') return [];
  const local = await scan(policies, text);
  const verdicts = policies.map((policy, i): PolicyVerdict => ({ policy, findings: local[i], unavailable: [] }));
  if (!verdicts.some(blocks)) await Promise.all(verdicts.map((v) => askServices(v, text)));
  return verdicts;
}
