// "Did you mean": the known name closest to a misspelt one, for config keys and plugin names.

/** Edits (insert, delete, replace one character) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}

/**
 * The known name a typo most likely meant: at most 2 edits away (ignoring case, `_` and `-`) and fewer edits than
 * half its length, so a short unrelated word suggests nothing.
 */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  const plain = (s: string) => s.toLowerCase().replace(/[-_]/g, '');
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(plain(name), plain(candidate));
    if (distance <= 2 && distance * 2 < candidate.length && (!best || distance < best.distance))
      best = { name: candidate, distance };
  }
  return best?.name;
}
