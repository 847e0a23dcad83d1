// A diff (longest common subsequence) between two sequences: the lines of two prompt texts, or the messages of two
// chat prompts compared whole.

export type DiffLine = { kind: 'same' | 'add' | 'del'; text: string };

/** Items beyond this many on either side are compared as one block: prompts are small, the table is n × m. */
const MAX_ITEMS = 2000;

export function sequenceDiff(a: readonly string[], b: readonly string[]): DiffLine[] {
  if (a.length > MAX_ITEMS || b.length > MAX_ITEMS)
    return [...a.map((text) => ({ kind: 'del' as const, text })), ...b.map((text) => ({ kind: 'add' as const, text }))];
  const lcs: Uint32Array[] = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ kind: 'del', text: a[i++]! });
    else out.push({ kind: 'add', text: b[j++]! });
  }
  while (i < a.length) out.push({ kind: 'del', text: a[i++]! });
  while (j < b.length) out.push({ kind: 'add', text: b[j++]! });
  return out;
}

export const lineDiff = (before: string, after: string): DiffLine[] =>
  sequenceDiff(before.split('\n'), after.split('\n'));

/** A piece of a changed line: `changed` when the other side of the pair does not have it. */
export type WordPart = { text: string; changed: boolean };

/** Words, runs of spaces and single punctuation marks: what a word diff compares. */
const words = (line: string) => line.match(/[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]/gu) ?? [];

/** A removed line and the added line that took its place, split into the words they share and those they do not. */
export function wordDiff(before: string, after: string): { before: WordPart[]; after: WordPart[] } {
  const ops = sequenceDiff(words(before), words(after));
  return {
    before: ops.filter((o) => o.kind !== 'add').map((o) => ({ text: o.text, changed: o.kind === 'del' })),
    after: ops.filter((o) => o.kind !== 'del').map((o) => ({ text: o.text, changed: o.kind === 'add' })),
  };
}
