// Counts regex matches per detector name, with where each is; the building block of every built-in detector.
import { tally, type Hit } from './tally.ts';
import type { Finding } from './types.ts';

export interface DetectorPattern {
  /** Reported name, e.g. `pii.credit_card`; patterns sharing a name add up. */
  detector: string;
  /** Must carry the `g` flag. */
  regex: RegExp;
  /** A check the regex cannot express (a checksum, a reserved range). */
  valid?: (match: RegExpExecArray) => boolean;
}

export function scanPatterns(patterns: readonly DetectorPattern[], text: string): Finding[] {
  const hits: Hit[] = [];
  for (const p of patterns) {
    for (const m of text.matchAll(p.regex)) {
      // An empty match (a custom pattern such as `a*`) is not a finding.
      if (m[0] !== '' && (!p.valid || p.valid(m)))
        hits.push({ detector: p.detector, at: [m.index, m.index + m[0].length] });
    }
  }
  return tally(hits);
}
