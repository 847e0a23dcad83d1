// The keys of the annotation queue page and their hints. Inside a choice, 1–9 and ←/→ pick a value (score-input.ts);
// here: ↑/↓ move between the score inputs, Enter saves and completes, S skips, C goes to the comment, Esc leaves a
// text field so the letters act as keys again.
import { h } from '../dom.ts';
import type { ScoreField } from '../score-input.ts';

export interface ReviewActions {
  fields(): ScoreField[];
  comment(): HTMLTextAreaElement | null;
  complete(): void;
  skip(): void;
}

/** A field that takes letters: there S and C are typed, not keys (a number field takes no S or C). */
const typing = (el: Element | null) =>
  el instanceof HTMLTextAreaElement || (el instanceof HTMLInputElement && el.type !== 'number');

/** Listens on the document; returns what stops listening (the page's cleanup). */
export function reviewKeys(a: ReviewActions): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const target = document.activeElement;
    const fields = a.fields();
    const at = fields.findIndex((f) => f.element === target || f.element.contains(target));
    if (e.key === 'Enter' && !(target instanceof HTMLTextAreaElement && e.shiftKey)) {
      // A link or a button of the page (not a choice) keeps its own Enter.
      if (at < 0 && (target instanceof HTMLButtonElement || target instanceof HTMLAnchorElement)) return;
      e.preventDefault();
      a.complete();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (target instanceof HTMLTextAreaElement || fields.length === 0) return;
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      fields[(Math.max(at, step > 0 ? -1 : 0) + step + fields.length) % fields.length]!.focus();
    } else if (e.key === 'Escape' && (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement)) {
      (target as HTMLElement).blur();
    } else if (!typing(target) && (e.key === 's' || e.key === 'S')) {
      e.preventDefault();
      a.skip();
    } else if (!typing(target) && (e.key === 'c' || e.key === 'C')) {
      e.preventDefault();
      a.comment()?.focus();
    }
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}

const HINTS: [string, string, boolean][] = [
  ['1–9  ←/→', 'choose a value of the selected score', true],
  ['↑/↓', 'previous / next score', true],
  ['Enter', 'save the scores and complete the item, then the next one', true],
  ['S', 'skip: leave the item pending and go to the next one', false],
  ['C', 'write a comment (saved with each score)', true],
  ['Esc', 'leave a text field (the comment, a text score), so S and C act again', true],
];

export function keyHints(canChange: boolean): HTMLElement {
  return h(
    'section',
    { class: 'panel key-hints', 'data-testid': 'key-hints' },
    h('h2', null, 'Keyboard'),
    h(
      'dl',
      { class: 'facts' },
      HINTS.filter(([, , forChanges]) => canChange || !forChanges).map(([keys, what]) => [
        h('dt', null, h('kbd', null, keys)),
        h('dd', null, what),
      ]),
    ),
  );
}
