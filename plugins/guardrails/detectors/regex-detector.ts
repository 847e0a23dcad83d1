// Custom regex lists from the config, compiled once at setup; a pattern that does not compile is a config error.
import { scanPatterns } from './pattern-scan.ts';
import type { LocalDetector } from './types.ts';

export function regexDetector(name: string, sources: readonly string[], caseInsensitive: boolean): LocalDetector {
  const patterns = sources.map((source, i) => {
    try {
      return { detector: `regex.${name}`, regex: new RegExp(source, caseInsensitive ? 'gi' : 'g') };
    } catch (err) {
      throw new Error(`patterns[${i}] is not a valid regular expression: ${(err as Error).message}`);
    }
  });
  return (text) => scanPatterns(patterns, text);
}
