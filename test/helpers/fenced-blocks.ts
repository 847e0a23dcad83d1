// The fenced code blocks of a Markdown page: the documentation's code that tests compile or run as a reader would.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FencedBlock {
  /** The page, relative to the repository root. */
  page: string;
  /** The first word of the info string (the language GitHub highlights), e.g. `ts`. */
  lang: string;
  /** The other words of the info string, e.g. `signature` for a call signature that is not code. */
  tags: string[];
  body: string;
  /** Line of the page that holds the block's first line of code (1-based). */
  line: number;
}

export function fencedBlocks(root: string, page: string): FencedBlock[] {
  const text = readFileSync(join(root, page), 'utf8');
  return [...text.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => {
    const [lang = '', ...tags] = m[1]!.trim().split(/\s+/);
    return { page, lang, tags, body: m[2]!, line: text.slice(0, m.index).split('\n').length + 1 };
  });
}

/** The blocks of these pages in one of `langs` that are code, not a call signature (info string `ts signature`). */
export function codeBlocks(root: string, pages: string[], langs: string[]): FencedBlock[] {
  return pages
    .flatMap((page) => fencedBlocks(root, page))
    .filter((b) => langs.includes(b.lang) && !b.tags.includes('signature'));
}
