// Traces of a project: filters and order kept in the page's query, newest first unless a column header says
// otherwise, paged by the cursors the data route gives (a deep page reads what the first does).
import { get, inProject } from '../api.ts';
import { h } from '../dom.ts';
import { dateTime, ms, num, usd } from '../format.ts';
import { href, seg } from '../router.ts';
import type { Pagination } from '../types.ts';
import { badge, pageHeader, pager, section, table, type Column, type ColumnSort } from '../ui.ts';
import type { ViewContext } from '../view.ts';
import { filterQuery, traceFilters } from './trace-filters.ts';

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

/** A row of the trace list: a summary with one-line previews of its input and output (cut by the server). */
export interface ListedTrace extends TraceSummary {
  inputPreview: string | null;
  outputPreview: string | null;
}

interface TraceListPage {
  data: ListedTrace[];
  pagination: Pagination & {
    next: string | null;
    previous: string | null;
    /** Set when the order or filters ranked only the newest this many matching traces. */
    rankedNewest: number | null;
  };
}

type TraceOrder = 'time' | 'latency' | 'cost';

const LIMIT = 50;

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

const preview = (text: string | null, testid: string) =>
  h('span', { class: 'preview', title: text ?? '', 'data-testid': testid }, text ?? '–');

export async function tracesPage(ctx: ViewContext): Promise<Node> {
  const q = ctx.query;
  const order: TraceOrder =
    q.get('sort') === 'latency' || q.get('sort') === 'cost' ? (q.get('sort') as TraceOrder) : 'time';
  const direction = q.get('order') === 'asc' ? 'asc' : 'desc';
  const page = await get<TraceListPage>(inProject(ctx.project, '/traces'), {
    limit: LIMIT,
    offset: q.get('offset') ?? undefined,
    after: q.get('after') ?? undefined,
    before: q.get('before') ?? undefined,
    sort: order === 'time' ? undefined : order,
    order: direction === 'asc' ? 'asc' : undefined,
    ...filterQuery(q),
  });
  const restart = { offset: undefined, after: undefined, before: undefined };
  /** The header of an order: the active one says its direction, and a click turns it; another starts descending. */
  const orderedBy = (column: TraceOrder): ColumnSort => ({
    direction: order !== column ? 'none' : direction === 'asc' ? 'ascending' : 'descending',
    toggle: () =>
      ctx.setQuery({
        ...restart,
        sort: column === 'time' ? undefined : column,
        order: order === column && direction === 'desc' ? 'asc' : undefined,
      }),
  });
  const columns: Column<ListedTrace>[] = [
    {
      title: 'Started',
      cell: (t) => h('span', { class: 'mono' }, dateTime(t.startTime)),
      class: 'col-time',
      sort: orderedBy('time'),
    },
    { title: 'Name', cell: (t) => traceLink(ctx.project, t), class: 'col-name' },
    { title: 'Input', cell: (t) => preview(t.inputPreview, 'trace-input-preview'), class: 'col-preview' },
    { title: 'Output', cell: (t) => preview(t.outputPreview, 'trace-output-preview'), class: 'col-preview' },
    { title: 'Status', cell: (t) => statusBadge(t.status, t.errorCode), class: 'col-status' },
    { title: 'Latency', cell: (t) => ms(t.duration), class: 'num col-latency', sort: orderedBy('latency') },
    { title: 'Tokens', cell: (t) => num(t.tokens), class: 'num col-tokens' },
    { title: 'Cost', cell: (t) => usd(t.cost), class: 'num col-cost', sort: orderedBy('cost') },
  ];
  const p = page.pagination;
  const offset = p.offset ?? 0;
  const turn = (to: number) =>
    ctx.setQuery(
      to === 0
        ? restart
        : to > offset
          ? { offset: String(to), after: p.next ?? undefined, before: undefined }
          : { offset: String(to), before: p.previous ?? undefined, after: undefined },
    );
  return h(
    'div',
    { class: 'page' },
    pageHeader('Traces'),
    section('Filters', traceFilters(ctx)),
    section(
      'Traces',
      p.rankedNewest
        ? h(
            'p',
            { class: 'hint', 'data-testid': 'ranked-newest' },
            `Level, cost and the cost order look at the newest ${num(p.rankedNewest)} matching traces; narrow the time range to reach older ones.`,
          )
        : null,
      table(page.data, columns, {
        testid: 'traces',
        emptyText: 'No traces match.',
        class: 'trace-list',
        rowAttrs: (t) => ({ 'data-id': t.id }),
      }),
      pager(
        offset,
        LIMIT,
        page.data.length,
        p,
        turn,
        order === 'time' && direction === 'desc' ? undefined : ['← Previous', 'Next →'],
      ),
    ),
  );
}
