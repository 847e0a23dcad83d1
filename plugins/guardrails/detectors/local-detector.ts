// Builds a built-in detector from its plain-data spec (the same call inline and in a worker thread).
import { injectionDetector } from './injection-detector.ts';
import { piiDetector } from './pii-detector.ts';
import { regexDetector } from './regex-detector.ts';
import { secretsDetector } from './secrets-detector.ts';
import type { Finding, LocalDetector, LocalDetectorSpec } from './types.ts';

export function localDetector(spec: LocalDetectorSpec): LocalDetector {
  switch (spec.type) {
    case 'pii':
      return piiDetector(spec.entities);
    case 'secrets':
      return secretsDetector(spec.kinds);
    case 'injection':
      return injectionDetector(spec.builtin_phrases, spec.phrases);
    case 'regex':
      return regexDetector(spec.name, spec.patterns, spec.case_insensitive);
  }
}

export function runDetectors(detectors: readonly LocalDetector[], text: string): Finding[] {
  return detectors.flatMap((d) => d(text));
}
