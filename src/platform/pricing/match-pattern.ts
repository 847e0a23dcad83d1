// Model match patterns (and usage-detail patterns of pricing tiers) are regular expressions a project key sends and
// every ingested generation is tested against. They run on RE2 (re2js): matching takes linear time whatever the
// pattern, so a pattern like `^(a+)+$` cannot stall the process as JavaScript's backtracking engine would. RE2 reads
// the leading `(?i)` that Langfuse's Postgres patterns often carry; it has no lookaround or backreferences, so such
// patterns are refused when the model is created.
import { RE2JS } from 're2js';

export interface Pattern {
  /** Whether the pattern matches somewhere in `text` (unanchored, like Postgres `~`). */
  test(text: string): boolean;
}

/** The pattern compiled; throws when it is not valid RE2 syntax. */
export function compilePattern(pattern: string, caseSensitive = true): Pattern {
  return RE2JS.compile(pattern, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
}

/** Why a pattern does not compile, or undefined when it does. */
export function patternError(pattern: string): string | undefined {
  try {
    compilePattern(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
