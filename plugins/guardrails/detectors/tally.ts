import type { Finding, MatchRange } from './types.ts';

/** One thing a detector found: its name and, when the detector can say, where. */
export interface Hit {
  detector: string;
  at?: MatchRange;
}

/** One finding per detector name, counting its occurrences and keeping where they are, in first-seen order. */
export function tally(hits: Iterable<Hit>): Finding[] {
  const found = new Map<string, Finding>();
  for (const { detector, at } of hits) {
    let f = found.get(detector);
    if (!f) found.set(detector, (f = { detector, count: 0, matches: [] }));
    f.count++;
    if (at) f.matches.push(at);
  }
  return [...found.values()];
}
