import type { Finding } from './types.ts';

/** One finding per detector name, counting its occurrences, in first-seen order. */
export function tally(detectors: Iterable<string>): Finding[] {
  const counts = new Map<string, number>();
  for (const d of detectors) counts.set(d, (counts.get(d) ?? 0) + 1);
  return [...counts].map(([detector, count]) => ({ detector, count }));
}
