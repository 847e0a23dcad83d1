// The worker-thread task of guardrails: built-in detectors of several policies over one text, on plain data.
import { localDetector, runDetectors } from './local-detector.ts';
import type { Finding, LocalDetector, LocalDetectorSpec } from './types.ts';

export interface ScanInput {
  /** The built-in detector specs of each policy. */
  policies: LocalDetectorSpec[][];
  text: string;
}

// Compiled once per thread: a policy's specs arrive with every task, its regexes need not be rebuilt.
const compiled = new Map<string, LocalDetector[]>();

function detectorsOf(specs: LocalDetectorSpec[]): LocalDetector[] {
  const key = JSON.stringify(specs);
  let detectors = compiled.get(key);
  if (!detectors) {
    detectors = specs.map(localDetector);
    compiled.set(key, detectors);
  }
  return detectors;
}

/** One list of findings per policy, in order. */
export function scanText({ policies, text }: ScanInput): Finding[][] {
  return policies.map((specs) => runDetectors(detectorsOf(specs), text));
}
