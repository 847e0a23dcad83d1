// Langfuse's prompt composition tags, `@@@langfusePrompt:name=<name>|version=<n>@@@` or `…|label=<label>@@@`, read as
// Langfuse reads them (the name first, exactly two parts; any other tag is left as text) in a text prompt and in the
// contents of a chat prompt's messages, and replaced there by the text they resolve to. The prompts repository reads
// them to refuse deleting a version another prompt depends on; compiling (src/observability/prompts/) replaces them.
import type { ChatEntry } from './chat-entry.ts';

export type PromptReference = { name: string; version: number } | { name: string; label: string };

const TAG = /@@@langfusePrompt:(.*?)@@@/g;

/** The reference a tag's inner text makes, or undefined when Langfuse would not read it. */
export function referenceOf(inner: string): PromptReference | undefined {
  const parts = inner.split('|');
  if (parts.length !== 2 || !parts[0].startsWith('name=')) return undefined;
  const name = parts[0].slice('name='.length);
  const equals = parts[1].indexOf('=');
  if (name === '' || equals === -1) return undefined;
  const [key, value] = [parts[1].slice(0, equals), parts[1].slice(equals + 1)];
  if (key === 'version' && /^[1-9]\d{0,9}$/.test(value)) return { name, version: Number(value) };
  if (key === 'label' && value !== '') return { name, label: value };
  return undefined;
}

/** `base - label production`, `base - version 2`: how Langfuse names a reference in its messages. */
export const describeReference = (r: PromptReference) =>
  'version' in r ? `${r.name} - version ${r.version}` : `${r.name} - label ${r.label}`;

/** One text per distinct reference, for maps of resolved references. */
export const referenceKey = (r: PromptReference) =>
  JSON.stringify('version' in r ? [r.name, 'version', r.version] : [r.name, 'label', r.label]);

const textsOf = (prompt: string | readonly ChatEntry[]): string[] =>
  typeof prompt === 'string' ? [prompt] : prompt.flatMap((m) => ('content' in m ? [m.content] : []));

/** The distinct references of a prompt, in the order they first appear. */
export function referencesIn(prompt: string | readonly ChatEntry[]): PromptReference[] {
  const found = new Map<string, PromptReference>();
  for (const text of textsOf(prompt)) {
    for (const [, inner] of text.matchAll(TAG)) {
      const ref = referenceOf(inner);
      if (ref && !found.has(referenceKey(ref))) found.set(referenceKey(ref), ref);
    }
  }
  return [...found.values()];
}

/** The prompt with each tag replaced by `textOf` its reference (tags it answers undefined for stay as they are). */
export function replaceReferences<P extends string | readonly ChatEntry[]>(
  prompt: P,
  textOf: (ref: PromptReference) => string | undefined,
): P {
  const replace = (text: string) =>
    text.replace(TAG, (tag, inner: string) => {
      const ref = referenceOf(inner);
      return (ref && textOf(ref)) ?? tag;
    });
  if (typeof prompt === 'string') return replace(prompt) as P;
  return (prompt as readonly ChatEntry[]).map((m) =>
    'content' in m ? { ...m, content: replace(m.content) } : m,
  ) as unknown as P;
}
