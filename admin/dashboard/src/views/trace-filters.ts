// The trace list's filters. Each is kept in the page's query under the name the data route takes (docs/dashboard.md
// "Traces"), so a filtered list can be linked: read from the query into the form, written back when it is sent.
import { h } from '../dom.ts';
import { href, seg } from '../router.ts';
import { field } from '../ui.ts';
import type { ViewContext } from '../view.ts';

const TEXT_FILTERS = [
  { id: 'q', label: 'Name contains' },
  { id: 'userId', label: 'User' },
  { id: 'sessionId', label: 'Session' },
  { id: 'tags', label: 'Tags (k or k:v, comma-separated)' },
  { id: 'agent', label: 'Agent' },
  { id: 'modelGroup', label: 'Model group' },
] as const;

/** The query holds latency in milliseconds, the form seconds. */
const RANGE_FILTERS = [
  { id: 'minLatencyMs', label: 'Latency ≥ (s)', scale: 1000 },
  { id: 'maxLatencyMs', label: 'Latency ≤ (s)', scale: 1000 },
  { id: 'minCost', label: 'Cost ≥ ($)', scale: 1 },
  { id: 'maxCost', label: 'Cost ≤ ($)', scale: 1 },
] as const;

const CHOICES = [
  {
    id: 'status',
    label: 'Status',
    options: [
      ['', 'Any'],
      ['completed', 'completed'],
      ['error', 'error'],
      ['in_progress', 'in progress'],
    ],
  },
  {
    id: 'level',
    label: 'Level',
    options: [
      ['', 'Any'],
      ['ERROR', 'error'],
      ['WARNING', 'warning or error'],
    ],
  },
] as const;

/** Query parameters kept as they are: the form's, and `name` (an exact name, from links). */
const KEPT = [...TEXT_FILTERS, ...RANGE_FILTERS, ...CHOICES].map((f) => f.id as string).concat('name', 'from', 'to');

/** The data route's filter parameters the page's query holds; a link's `tag` joins the `tags` list. */
export function filterQuery(q: URLSearchParams): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = Object.fromEntries(KEPT.map((id) => [id, q.get(id) ?? undefined]));
  out.tags = [q.get('tag'), q.get('tags')].filter(Boolean).join(',') || undefined;
  return out;
}

const isoOrUndefined = (local: string) => (local ? new Date(local).toISOString() : undefined);
const toLocal = (iso: string | undefined) => {
  const d = new Date(iso ?? '');
  return Number.isNaN(d.getTime())
    ? ''
    : new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};
const scaled = (value: string | undefined, scale: number) => (value === undefined ? '' : String(Number(value) / scale));

/** The filter form; sending it starts the list again from its first page, in the same order. */
export function traceFilters(ctx: ViewContext): HTMLElement {
  const current = filterQuery(ctx.query);
  const text = TEXT_FILTERS.map((f) => ({
    f,
    input: h('input', { type: 'search', name: f.id, value: current[f.id] ?? '' }),
  }));
  const ranges = RANGE_FILTERS.map((f) => ({
    f,
    input: h('input', { type: 'number', min: 0, step: 'any', name: f.id, value: scaled(current[f.id], f.scale) }),
  }));
  const choices = CHOICES.map((f) => ({
    f,
    input: h(
      'select',
      { name: f.id },
      f.options.map(([value, label]) => h('option', { value, selected: (current[f.id] ?? '') === value }, label)),
    ),
  }));
  const from = h('input', { type: 'datetime-local', name: 'from', value: toLocal(current.from) });
  const to = h('input', { type: 'datetime-local', name: 'to', value: toLocal(current.to) });
  const onsubmit = (e: Event) => {
    e.preventDefault();
    const next: Record<string, string | undefined> = {
      offset: undefined,
      after: undefined,
      before: undefined,
      tag: undefined,
      from: isoOrUndefined(from.value),
      to: isoOrUndefined(to.value),
    };
    for (const { f, input } of [...text, ...choices]) next[f.id] = input.value.trim() || undefined;
    next.tags =
      next.tags
        ?.split(',')
        .map((tag) => tag.trim())
        .filter(Boolean)
        .join(',') || undefined;
    for (const { f, input } of ranges)
      next[f.id] = input.value === '' ? undefined : String(Math.round(Number(input.value) * f.scale * 1e6) / 1e6);
    ctx.setQuery(next);
  };
  return h(
    'form',
    { class: 'filters', 'data-testid': 'trace-filters', onsubmit },
    choices.map(({ f, input }) => field(f.label, input)),
    text.map(({ f, input }) => field(f.label, input)),
    ranges.map(({ f, input }) => field(f.label, input)),
    field('From', from),
    field('To', to),
    h('button', { type: 'submit', class: 'primary' }, 'Filter'),
    h('a', { href: href(`/p/${seg(ctx.project)}/traces`), class: 'hint' }, 'Clear'),
  );
}
