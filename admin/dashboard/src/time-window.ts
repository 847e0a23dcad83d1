// The window picker: last hour, 24 hours, 7 days, 30 days, or a custom range; kept in the page's query. A page
// whose address names no window opens on the one the server picks for the traffic there is (docs/dashboard.md).
import { get, inProject, type Query } from './api.ts';
import { h } from './dom.ts';
import type { ViewContext } from './view.ts';

export const WINDOWS = [
  { id: '1h', label: 'Last hour' },
  { id: '24h', label: '24 hours' },
  { id: '7d', label: '7 days' },
  { id: '30d', label: '30 days' },
] as const;

/** The metrics routes' query for the page's query: `window`, or `from` and `to` for a custom range; none: undefined. */
function askedWindow(query: URLSearchParams): Query | undefined {
  const from = query.get('from');
  const to = query.get('to');
  if (from && to) return { from, to };
  const w = query.get('window');
  return WINDOWS.some((x) => x.id === w) ? { window: w } : undefined;
}

/** The window of the page: the one its address names, else the server's pick (the smallest that holds the traffic). */
export async function pageWindow(ctx: Pick<ViewContext, 'project' | 'query'>): Promise<Query> {
  const asked = askedWindow(ctx.query);
  if (asked) return asked;
  const { window } = await get<{ window: string }>(inProject(ctx.project, '/metrics/default-window'));
  return { window };
}

export const toLocalInput = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

export function windowPicker(current: Query, set: (q: Record<string, string | undefined>) => void): HTMLElement {
  const custom = current.from !== undefined;
  const from = h('input', {
    type: 'datetime-local',
    value: toLocalInput(custom ? String(current.from) : null),
    'aria-label': 'From',
  });
  const to = h('input', {
    type: 'datetime-local',
    value: toLocalInput(custom ? String(current.to) : null),
    'aria-label': 'To',
  });
  const customBox = h(
    'form',
    {
      class: `custom-range${custom ? '' : ' hidden'}`,
      onsubmit: (e: Event) => {
        e.preventDefault();
        if (!from.value || !to.value) return;
        set({ window: undefined, from: new Date(from.value).toISOString(), to: new Date(to.value).toISOString() });
      },
    },
    from,
    h('span', null, '→'),
    to,
    h('button', { type: 'submit', class: 'secondary' }, 'Apply'),
  );
  const buttons = WINDOWS.map((w) =>
    h(
      'button',
      {
        type: 'button',
        class: `seg${!custom && current.window === w.id ? ' active' : ''}`,
        'data-window': w.id,
        onclick: () => set({ window: w.id, from: undefined, to: undefined }),
      },
      w.label,
    ),
  );
  const customButton = h(
    'button',
    { type: 'button', class: `seg${custom ? ' active' : ''}`, onclick: () => customBox.classList.toggle('hidden') },
    'Custom…',
  );
  return h(
    'div',
    { class: 'window-picker' },
    h('div', { class: 'segmented', role: 'group', 'aria-label': 'Time window' }, ...buttons, customButton),
    customBox,
  );
}
