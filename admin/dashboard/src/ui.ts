// Small building blocks shared by the pages: headings, tables, buttons with async actions, notices, a pager.
import { ApiError } from './api.ts';
import { h, type Child } from './dom.ts';
import { num } from './format.ts';
import type { Pagination } from './types.ts';

export function pageHeader(title: string, ...right: Child[]): HTMLElement {
  return h('header', { class: 'page-header' }, h('h1', null, title), h('div', { class: 'page-tools' }, ...right));
}

export function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'panel' }, h('h2', null, title), ...children);
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError) return `${err.message} (${err.code})`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * A form's submit handler: no page load; the message cleared, and the button (if any) disabled, while `run` goes;
 * what `run` throws shown in the message, then `onError` (e.g. to select a field again).
 */
export function submitHandler(
  message: HTMLElement,
  submit: HTMLButtonElement | null,
  run: () => Promise<void>,
  onError?: () => void,
): (e: Event) => Promise<void> {
  return async (e) => {
    e.preventDefault();
    message.textContent = '';
    if (submit) submit.disabled = true;
    try {
      await run();
    } catch (err) {
      message.textContent = errorText(err);
      onError?.();
    } finally {
      if (submit) submit.disabled = false;
    }
  };
}

export function errorBox(err: unknown): HTMLElement {
  return h('div', { class: 'notice error', role: 'alert' }, errorText(err));
}

export function empty(text: string): HTMLElement {
  return h('p', { class: 'empty' }, text);
}

/** A column the table can be ordered by: its header is a button, and says the order in `aria-sort`. */
export interface ColumnSort {
  direction: 'ascending' | 'descending' | 'none';
  toggle: () => void;
}

export interface Column<T> {
  title: string;
  cell: (row: T) => Child;
  class?: string;
  sort?: ColumnSort;
}

const SORT_ARROWS = { ascending: ' ↑', descending: ' ↓', none: ' ↕' };

function columnHead<T>(c: Column<T>): HTMLElement {
  if (!c.sort) return h('th', { class: c.class }, c.title);
  return h(
    'th',
    { class: c.class, 'aria-sort': c.sort.direction },
    h('button', { type: 'button', class: 'sort', onclick: c.sort.toggle }, c.title, SORT_ARROWS[c.sort.direction]),
  );
}

export function table<T>(
  rows: T[],
  columns: Column<T>[],
  options: { testid?: string; emptyText?: string; rowAttrs?: (row: T) => Record<string, string>; class?: string } = {},
): HTMLElement {
  if (rows.length === 0) return empty(options.emptyText ?? 'Nothing yet.');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { 'data-testid': options.testid, class: options.class },
      h('thead', null, h('tr', null, columns.map(columnHead))),
      h(
        'tbody',
        null,
        rows.map((r) =>
          h(
            'tr',
            options.rowAttrs?.(r) ?? null,
            columns.map((c) => h('td', { class: c.class }, c.cell(r))),
          ),
        ),
      ),
    ),
  );
}

/**
 * A button running an async action: disabled while it runs, the error shown next to it.
 * `confirmText` asks first (deletes, blocks).
 */
export function actionButton(
  label: string,
  run: () => Promise<unknown>,
  options: { class?: string; confirmText?: string; testid?: string } = {},
): HTMLElement {
  const status = h('span', { class: 'inline-error', role: 'alert' });
  const button = h(
    'button',
    {
      type: 'button',
      class: options.class ?? 'secondary',
      'data-testid': options.testid,
      onclick: async () => {
        if (options.confirmText && !window.confirm(options.confirmText)) return;
        button.disabled = true;
        status.textContent = '';
        try {
          await run();
        } catch (err) {
          status.textContent = errorText(err);
        } finally {
          button.disabled = false;
        }
      },
    },
    label,
  );
  return h('span', { class: 'action' }, button, status);
}

/** A value shown once (a signing secret, a key): copyable, with the warning that it will not be shown again. */
export function shownOnce(label: string, value: string, testid: string): HTMLElement {
  const input = h('input', { type: 'text', readOnly: true, value, class: 'secret', 'data-testid': testid });
  return h(
    'div',
    { class: 'notice success', role: 'status' },
    h('strong', null, label),
    h(
      'div',
      { class: 'secret-row' },
      input,
      h(
        'button',
        { type: 'button', class: 'secondary', onclick: () => void navigator.clipboard?.writeText(value) },
        'Copy',
      ),
    ),
    h('p', { class: 'hint' }, 'It is shown once. Store it now.'),
  );
}

export function badge(text: string, kind: 'ok' | 'warn' | 'bad' | 'muted' = 'muted'): HTMLElement {
  return h('span', { class: `badge ${kind}` }, text);
}

/** Newer / older buttons and `1–50 of 120`; a total that is a lower bound reads `of 1,000+`. */
export function pager(
  offset: number,
  limit: number,
  shown: number,
  pagination: Pagination | undefined,
  go: (offset: number) => void,
  labels: [previous: string, next: string] = ['← Newer', 'Older →'],
): HTMLElement {
  if (shown === 0 && offset === 0) return h('span');
  const last = offset + shown;
  const total = pagination?.total;
  const hasNext = total === undefined ? shown === limit : last < total;
  const of = total === undefined ? '' : ` of ${num(total)}${pagination?.totalIsLowerBound ? '+' : ''}`;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    h(
      'button',
      { type: 'button', class: 'secondary', disabled: offset === 0, onclick: () => go(Math.max(0, offset - limit)) },
      labels[0],
    ),
    h('span', { 'data-testid': 'pager-range' }, shown === 0 ? 'none' : `${num(offset + 1)}–${num(last)}${of}`),
    h(
      'button',
      { type: 'button', class: 'secondary', disabled: !hasNext, onclick: () => go(offset + limit) },
      labels[1],
    ),
  );
}

export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  return h('label', { class: 'field' }, h('span', null, label), control, hint ? h('small', null, hint) : null);
}

export function stat(label: string, value: string, testid: string, wide = false): HTMLElement {
  return h(
    'div',
    { class: wide ? 'stat wide' : 'stat' },
    h('div', { class: 'stat-label' }, label),
    h('div', { class: 'stat-value', 'data-testid': testid }, value),
  );
}
