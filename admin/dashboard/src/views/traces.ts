// Traces of a project: filters kept in the page's query, newest first, paged.
import { get, inProject } from '../api.ts';
import { h } from '../dom.ts';
import { dateTime, ms, num, usd } from '../format.ts';
import { href, seg } from '../router.ts';
import type { Page } from '../types.ts';
import { badge, field, pageHeader, pager, section, table, type Column } from '../ui.ts';
import type { ViewContext } from '../view.ts';

export interface TraceSummary {
  id: string;
  name: string | null;
  startTime: string;
  endTime: string | null;
  duration: number | null;
  status: 'in_progress' | 'completed' | 'error' | string;
  tokens: number;
  cost: number;
  tags: Record<string, string>;
  source?: string;
  agentId: string | null;
  agentName: string | null;
  modelGroup: string | null;
  deployment: string | null;
  userId: string | null;
  sessionId: string | null;
  statusCode: number | null;
  errorCode: string | null;
  cacheHit: boolean | null;
}

const LIMIT = 50;
const TEXT_FILTERS = [
  { id: 'q', label: 'Name contains' },
  { id: 'agent', label: 'Agent' },
  { id: 'modelGroup', label: 'Model group' },
  { id: 'userId', label: 'User' },
  { id: 'sessionId', label: 'Session' },
  { id: 'tag', label: 'Tag (key or key:value)' },
] as const;

export function statusBadge(status: string, errorCode?: string | null): HTMLElement {
  if (status === 'error') return badge(errorCode ? `error · ${errorCode}` : 'error', 'bad');
  if (status === 'in_progress') return badge('in progress', 'warn');
  return badge(status, 'ok');
}

/** A trace's name (its id when it has none), linking to its page. */
export const traceLink = (project: string, t: { id: string; name: string | null }) =>
  h('a', { href: href(`/p/${seg(project)}/traces/${seg(t.id)}`), 'data-testid': 'trace-link' }, t.name ?? t.id);

/**
 * A table of traces, on the trace list and a user's page: start, name (linking to the trace) and status first, then
 * the columns the page adds, then duration, tokens and cost.
 */
export function traceTable(
  project: string,
  rows: TraceSummary[],
  middle: Column<TraceSummary>[],
  options: { testid: string; emptyText: string },
): HTMLElement {
  return table(
    rows,
    [
      { title: 'Started', cell: (t) => h('span', { class: 'mono nowrap' }, dateTime(t.startTime)) },
      { title: 'Name', cell: (t) => traceLink(project, t) },
      { title: 'Status', cell: (t) => statusBadge(t.status, t.errorCode) },
      ...middle,
      { title: 'Duration', cell: (t) => ms(t.duration), class: 'num' },
      { title: 'Tokens', cell: (t) => num(t.tokens), class: 'num' },
      { title: 'Cost', cell: (t) => usd(t.cost), class: 'num' },
    ],
    options,
  );
}

const isoOrUndefined = (local: string) => (local ? new Date(local).toISOString() : undefined);
const toLocal = (iso: string | null) => {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? ''
    : new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

export async function tracesPage(ctx: ViewContext): Promise<Node> {
  const q = ctx.query;
  const offset = Math.max(0, Number(q.get('offset') ?? 0) || 0);
  const query: Record<string, string | number | undefined> = {
    limit: LIMIT,
    offset,
    status: q.get('status') ?? undefined,
    from: q.get('from') ?? undefined,
    to: q.get('to') ?? undefined,
  };
  for (const f of TEXT_FILTERS) query[f.id] = q.get(f.id) ?? undefined;
  const page = await get<Page<TraceSummary>>(inProject(ctx.project, '/traces'), query);

  const inputs = Object.fromEntries(
    TEXT_FILTERS.map((f) => [f.id, h('input', { type: 'search', name: f.id, value: q.get(f.id) ?? '' })]),
  );
  const status = h(
    'select',
    { name: 'status' },
    ['', 'completed', 'error', 'in_progress'].map((s) =>
      h('option', { value: s, selected: (q.get('status') ?? '') === s }, s === '' ? 'Any' : s.replace('_', ' ')),
    ),
  );
  const from = h('input', { type: 'datetime-local', name: 'from', value: toLocal(q.get('from')) });
  const to = h('input', { type: 'datetime-local', name: 'to', value: toLocal(q.get('to')) });
  const filters = h(
    'form',
    {
      class: 'filters',
      'data-testid': 'trace-filters',
      onsubmit: (e: Event) => {
        e.preventDefault();
        const next: Record<string, string | undefined> = {
          offset: undefined,
          status: status.value || undefined,
          from: isoOrUndefined(from.value),
          to: isoOrUndefined(to.value),
        };
        for (const f of TEXT_FILTERS) next[f.id] = inputs[f.id]!.value.trim() || undefined;
        ctx.setQuery(next);
      },
    },
    field('Status', status),
    TEXT_FILTERS.map((f) => field(f.label, inputs[f.id]!)),
    field('From', from),
    field('To', to),
    h('button', { type: 'submit', class: 'primary' }, 'Filter'),
    h('a', { href: href(`/p/${seg(ctx.project)}/traces`), class: 'hint' }, 'Clear'),
  );
  return h(
    'div',
    { class: 'page' },
    pageHeader('Traces'),
    section('Filters', filters),
    section(
      'Traces',
      traceTable(
        ctx.project,
        page.data,
        [
          { title: 'Agent', cell: (t) => t.agentName ?? t.agentId ?? '–' },
          { title: 'Model group', cell: (t) => t.modelGroup ?? '–' },
          { title: 'Deployment', cell: (t) => t.deployment ?? '–' },
          { title: 'User', cell: (t) => t.userId ?? '–' },
        ],
        { testid: 'traces', emptyText: 'No traces match.' },
      ),
      pager(offset, LIMIT, page.data.length, page.pagination, (o) => ctx.setQuery({ offset: String(o) })),
    ),
  );
}
