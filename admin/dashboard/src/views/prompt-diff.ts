// Two versions of a prompt side by side as one unified diff: a text prompt line by line; a chat prompt message by
// message (matched whole, then a changed message's role and content line by line); then the config as JSON lines. A
// removed line followed by the added line that replaced it has the words that differ marked.
import { h } from '../dom.ts';
import { asText } from '../format.ts';
import { lineDiff, sequenceDiff, wordDiff, type DiffLine, type WordPart } from '../line-diff.ts';
import { badge } from '../ui.ts';
import { isPlaceholder, type ChatMessage, type PromptVersion } from './prompt-model.ts';

const SIGN = { add: '+ ', del: '- ', same: '  ' } as const;

/**
 * The words of each removed line that an added line replaced: in a run of removed lines followed by added ones, the
 * n-th removed pairs with the n-th added.
 */
function pairedWords(diff: DiffLine[]): Map<number, WordPart[]> {
  const parts = new Map<number, WordPart[]>();
  for (let i = 0; i < diff.length;) {
    const start = i;
    while (diff[i]?.kind === 'del') i++;
    const added = i;
    while (diff[i]?.kind === 'add') i++;
    for (let p = 0; p < Math.min(added - start, i - added); p++) {
      const pair = wordDiff(diff[start + p]!.text, diff[added + p]!.text);
      parts.set(start + p, pair.before).set(added + p, pair.after);
    }
    if (i === start) i++;
  }
  return parts;
}

function lines(diff: DiffLine[]): HTMLElement[] {
  const parts = pairedWords(diff);
  return diff.map((d, i) =>
    h(
      'div',
      { class: d.kind },
      h('span', { class: 'sign' }, SIGN[d.kind]),
      parts.get(i)?.map((w) => (w.changed ? h('span', { class: 'word' }, w.text) : w.text)) ?? d.text,
    ),
  );
}

const roleOf = (m: ChatMessage) => (isPlaceholder(m) ? `placeholder ${m.name ?? ''}` : (m.role ?? '?'));
const textOf = (m: ChatMessage) => (isPlaceholder(m) ? '' : asText(m.content));
/** What makes two messages the same message. */
const keyOf = (m: ChatMessage) => JSON.stringify([roleOf(m), textOf(m)]);

const messages = (v: PromptVersion): ChatMessage[] =>
  typeof v.prompt === 'string' ? [{ role: 'text', content: v.prompt }] : v.prompt;

type MessageChange =
  { kind: 'same' | 'add' | 'del'; message: ChatMessage } | { kind: 'changed'; before: ChatMessage; after: ChatMessage };

/** Messages matched whole; within a run of removals and additions, the n-th removed pairs with the n-th added. */
function messageChanges(before: ChatMessage[], after: ChatMessage[]): MessageChange[] {
  const ops = sequenceDiff(before.map(keyOf), after.map(keyOf));
  const out: MessageChange[] = [];
  let i = 0;
  let j = 0;
  for (let k = 0; k < ops.length;) {
    if (ops[k]!.kind === 'same') {
      out.push({ kind: 'same', message: after[j++]! });
      i++;
      k++;
      continue;
    }
    const removed: ChatMessage[] = [];
    const added: ChatMessage[] = [];
    for (; k < ops.length && ops[k]!.kind !== 'same'; k++)
      if (ops[k]!.kind === 'del') removed.push(before[i++]!);
      else added.push(after[j++]!);
    const paired = Math.min(removed.length, added.length);
    for (let p = 0; p < paired; p++) out.push({ kind: 'changed', before: removed[p]!, after: added[p]! });
    for (const m of removed.slice(paired)) out.push({ kind: 'del', message: m });
    for (const m of added.slice(paired)) out.push({ kind: 'add', message: m });
  }
  return out;
}

const STATUS = {
  same: () => badge('unchanged'),
  changed: () => badge('changed', 'warn'),
  add: () => badge('added', 'ok'),
  del: () => badge('removed', 'bad'),
};

function messageBlock(change: MessageChange, chat: boolean): HTMLElement {
  const role =
    change.kind !== 'changed'
      ? roleOf(change.message)
      : roleOf(change.before) === roleOf(change.after)
        ? roleOf(change.after)
        : `${roleOf(change.before)} → ${roleOf(change.after)}`;
  const body =
    change.kind === 'changed'
      ? lineDiff(textOf(change.before), textOf(change.after))
      : textOf(change.message)
          .split('\n')
          .map((text) => ({ kind: change.kind, text }));
  return h(
    'div',
    { class: `diff-block ${change.kind}`, 'data-testid': 'diff-message' },
    chat ? h('div', { class: 'diff-head' }, h('span', { class: 'msg-role' }, role), STATUS[change.kind]()) : null,
    h('div', { class: 'diff' }, lines(body)),
  );
}

const configText = (v: PromptVersion) => asText(v.config ?? {});

/** How many lines were added and removed, counted over messages and config. */
function counts(blocks: HTMLElement[]): { add: number; del: number } {
  const count = (kind: string) => blocks.reduce((n, b) => n + b.querySelectorAll(`.diff > .${kind}`).length, 0);
  return { add: count('add'), del: count('del') };
}

export function promptDiff(base: PromptVersion, target: PromptVersion): HTMLElement {
  const chat = base.type === 'chat' || target.type === 'chat';
  const blocks = messageChanges(messages(base), messages(target)).map((c) => messageBlock(c, chat));
  const config = lineDiff(configText(base), configText(target));
  const configChanged = config.some((d) => d.kind !== 'same');
  const configBlock = h(
    'div',
    { class: 'diff-block', 'data-testid': 'config-diff' },
    h(
      'div',
      { class: 'diff-head' },
      h('span', { class: 'msg-role' }, 'config'),
      configChanged ? STATUS.changed() : STATUS.same(),
    ),
    h('div', { class: 'diff' }, lines(config)),
  );
  const { add, del } = counts([...blocks, configBlock]);
  return h(
    'div',
    { 'data-testid': 'prompt-diff' },
    h(
      'p',
      { class: 'diff-summary', 'data-testid': 'diff-summary' },
      h('span', { class: 'diff-count add' }, `+${add}`),
      h('span', { class: 'diff-count del' }, `−${del}`),
      ` lines from v${base.version} to v${target.version}`,
      configChanged ? ' · config changed' : ' · config unchanged',
    ),
    blocks,
    configBlock,
  );
}
