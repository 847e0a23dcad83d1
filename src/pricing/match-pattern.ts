// Model match patterns are Postgres regular expressions (Langfuse matches with `model ~ pattern`); they often start
// with `(?i)`, which JavaScript does not accept, so it becomes the `i` flag.

/** The pattern as a RegExp (unanchored, like `~`); throws SyntaxError when it does not compile. */
export function compilePattern(pattern: string, caseSensitive = true): RegExp {
  const insensitive = pattern.startsWith('(?i)');
  return new RegExp(insensitive ? pattern.slice(4) : pattern, insensitive || !caseSensitive ? 'i' : '');
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
