// A score config as a form control: choices for BOOLEAN and CATEGORICAL configs (keys 1–9 or ←/→ pick one), a
// number field with the config's bounds for NUMERIC, a text field for TEXT. Used by the annotation queue and the
// trace page's "Add score".
import { h } from './dom.ts';

export interface ScoreConfig {
  id: string;
  name: string;
  dataType: 'NUMERIC' | 'CATEGORICAL' | 'BOOLEAN' | 'TEXT';
  isArchived: boolean;
  minValue: number | null;
  maxValue: number | null;
  categories: { label: string; value: number }[] | null;
  description: string | null;
}

export interface ScoreField {
  element: HTMLElement;
  focus(): void;
  /** What POST …/scores takes as `value` (a category's label, a BOOLEAN's 1 or 0); undefined when none is given. */
  value(): number | string | undefined;
  /** Shows a score already given. */
  set(score: ScoreValue): void;
}

type ScoreValue = { value: number | null; stringValue: string | null };

/** A score's value as the lists show it: its category or True/False, else its number. */
export const scoreValueText = (s: ScoreValue) => s.stringValue ?? (s.value === null ? '–' : String(s.value));

/** `0 – 10`, `good, bad`, or `True / False`: what a config allows. */
export function configRange(c: ScoreConfig): string {
  if (c.dataType === 'NUMERIC')
    return c.minValue === null && c.maxValue === null ? 'any number' : `${c.minValue ?? '−∞'} – ${c.maxValue ?? '∞'}`;
  if (c.dataType === 'TEXT') return 'free text';
  return (c.categories ?? []).map((x) => (c.dataType === 'BOOLEAN' ? x.label : `${x.label} (${x.value})`)).join(', ');
}

function choiceField(config: ScoreConfig): ScoreField {
  const categories = config.categories ?? [];
  let chosen = -1;
  const buttons = categories.map((c, i) =>
    h(
      'button',
      {
        type: 'button',
        role: 'radio',
        tabindex: -1,
        class: 'seg',
        'aria-checked': 'false',
        'data-choice': c.label,
        onclick: () => choose(i),
      },
      i < 9 ? h('kbd', null, String(i + 1)) : null,
      ' ',
      c.label,
    ),
  );
  const group = h(
    'div',
    {
      class: 'segmented choices',
      role: 'radiogroup',
      tabindex: 0,
      'aria-label': config.name,
      onkeydown: (e: KeyboardEvent) => {
        const digit = Number(e.key);
        if (Number.isInteger(digit) && digit >= 1 && digit <= Math.min(9, categories.length)) choose(digit - 1);
        else if (e.key === 'ArrowRight') choose((chosen + 1) % categories.length);
        else if (e.key === 'ArrowLeft') choose((chosen - 1 + categories.length) % categories.length);
        else return;
        e.preventDefault();
      },
    },
    buttons,
  );
  function choose(i: number): void {
    chosen = i;
    buttons.forEach((b, j) => {
      b.setAttribute('aria-checked', String(j === i));
      b.classList.toggle('active', j === i);
    });
  }
  return {
    element: group,
    focus: () => group.focus(),
    set: (s) => choose(categories.findIndex((c) => c.label === s.stringValue)),
    value: () => {
      const c = categories[chosen];
      if (!c) return undefined;
      return config.dataType === 'BOOLEAN' ? c.value : c.label;
    },
  };
}

export function scoreField(config: ScoreConfig): ScoreField {
  if (config.dataType === 'BOOLEAN' || config.dataType === 'CATEGORICAL') return choiceField(config);
  const numeric = config.dataType === 'NUMERIC';
  const input = h('input', {
    type: numeric ? 'number' : 'text',
    step: numeric ? 'any' : null,
    min: config.minValue ?? null,
    max: config.maxValue ?? null,
    'aria-label': config.name,
    placeholder: numeric ? configRange(config) : 'text',
  });
  return {
    element: input,
    focus: () => input.focus(),
    set: (s) => {
      input.value = (numeric ? s.value?.toString() : s.stringValue) ?? '';
    },
    value: () => {
      const v = input.value.trim();
      if (v === '') return undefined;
      return numeric ? Number(v) : v;
    },
  };
}
