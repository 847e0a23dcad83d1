// Scores of a project: newest first, filtered by name, source, data type, value range and time, paged by keyset
// (each older page starts after the last score shown, so a deep page is as quick as the first).
import { get, inProject, type Query } from '../api.ts';
import { h } from '../dom.ts';
import { dateTime, num } from '../format.ts';
import { href, seg } from '../router.ts';
import { scoreValueText } from '../score-input.ts';
import { toLocalInput, WINDOWS } from '../time-window.ts';
import { badge, field, pageHeader, section, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';

interface ScoreRow {
  id: string;
  name: string;
  dataType: string;
  value: number | null;
  stringValue: string | null;
  source: 'API' | 'ANNOTATION' | 'EVAL';
  traceId: string | null;
  traceName: string | null;
  observationId: string | null;
  sessionId: string | null;
  comment: string | null;
  author: string | null;
  timestamp: string;
}

interface ScorePage {
  data: ScoreRow[];
  next: { afterTimestamp: string; afterId: string } | null;
}

const LIMIT = 50;
const WINDOW_MS: Record<string, number> = {
  '1h': 3_600_000,
  '24h': 86_400_000,
  '7d': 604_800_000,
  '30d': 2_592_000_000,
};
const SOURCE_KIND = { API: 'muted', ANNOTATION: 'ok', EVAL: 'warn' } as const;

const select = (name: string, current: string, options: string[], anyLabel = 'Any') =>
  h(
    'select',
    { name },
    ['', ...options].map((o) => h('option', { value: o, selected: current === o }, o === '' ? anyLabel : o)),
  );

/** The route's query for the page's: a named window becomes its start, counted back from now. */
function listQuery(q: URLSearchParams): Query {
  const window = WINDOW_MS[q.get('window') ?? ''];
  const query: Query = { limit: LIMIT };
  for (const k of ['name', 'source', 'dataType', 'valueMin', 'valueMax', 'to', 'afterTimestamp', 'afterId'])
    query[k] = q.get(k);
  query.from = window === undefined ? q.get('from') : new Date(Date.now() - window).toISOString();
  return query;
}

/** What the score is about: its trace (and observation) or session, linked. */
function subject(project: string, s: ScoreRow): HTMLElement | string {
  if (s.traceId)
    return h(
      'span',
      null,
      h(
        'a',
        { href: href(`/p/${seg(project)}/traces/${seg(s.traceId)}`), 'data-testid': 'score-trace' },
        s.traceName ?? s.traceId,
      ),
      h('div', { class: 'hint mono' }, s.observationId ? `${s.traceId} › ${s.observationId}` : s.traceId),
    );
  if (s.sessionId)
    return h('a', { class: 'mono', href: href(`/p/${seg(project)}/sessions/${seg(s.sessionId)}`) }, s.sessionId);
  return '–';
}

function filterForm(ctx: ViewContext, names: string[]): HTMLElement {
  const q = ctx.query;
  const name = h('input', { type: 'search', name: 'name', value: q.get('name') ?? '', list: 'score-names' });
  const source = select('source', q.get('source') ?? '', ['API', 'ANNOTATION', 'EVAL']);
  const dataType = select('dataType', q.get('dataType') ?? '', ['NUMERIC', 'CATEGORICAL', 'BOOLEAN', 'TEXT']);
  const valueMin = h('input', { type: 'number', step: 'any', name: 'valueMin', value: q.get('valueMin') ?? '' });
  const valueMax = h('input', { type: 'number', step: 'any', name: 'valueMax', value: q.get('valueMax') ?? '' });
  const window = h(
    'select',
    { name: 'window' },
    h('option', { value: '' }, 'Any time'),
    WINDOWS.map((w) => h('option', { value: w.id, selected: q.get('window') === w.id }, w.label)),
  );
  const from = h('input', { type: 'datetime-local', name: 'from', value: toLocalInput(q.get('from')) });
  const to = h('input', { type: 'datetime-local', name: 'to', value: toLocalInput(q.get('to')) });
  const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);
  return h(
    'form',
    {
      class: 'filters',
      'data-testid': 'score-filters',
      onsubmit: (e: Event) => {
        e.preventDefault();
        ctx.setQuery({
          name: name.value.trim() || undefined,
          source: source.value || undefined,
          dataType: dataType.value || undefined,
          valueMin: valueMin.value || undefined,
          valueMax: valueMax.value || undefined,
          window: window.value || undefined,
          from: window.value ? undefined : iso(from.value),
          to: window.value ? undefined : iso(to.value),
          afterTimestamp: undefined,
          afterId: undefined,
          shown: undefined,
        });
      },
    },
    field('Name', name),
    h(
      'datalist',
      { id: 'score-names' },
      names.map((n) => h('option', { value: n })),
    ),
    field('Source', source),
    field('Data type', dataType),
    field('Value ≥', valueMin),
    field('Value ≤', valueMax),
    field('Time', window),
    field('From', from),
    field('To', to),
    h('button', { type: 'submit', class: 'primary' }, 'Filter'),
    h('a', { href: href(`/p/${seg(ctx.project)}/scores`), class: 'hint' }, 'Clear'),
  );
}

/** First page / older page, and which rows these are (`51–100`). */
function keysetPager(ctx: ViewContext, page: ScorePage): HTMLElement {
  const before = Number(ctx.query.get('shown') ?? 0) || 0;
  const deep = ctx.query.get('afterId') !== null;
  const range = page.data.length === 0 ? 'none' : `${num(before + 1)}–${num(before + page.data.length)}`;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        disabled: !deep,
        onclick: () => ctx.setQuery({ afterTimestamp: undefined, afterId: undefined, shown: undefined }),
      },
      '⇤ Newest',
    ),
    h('span', { 'data-testid': 'pager-range' }, range),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        'data-testid': 'scores-older',
        disabled: page.next === null,
        onclick: () => page.next && ctx.setQuery({ ...page.next, shown: String(before + page.data.length) }),
      },
      'Older →',
    ),
  );
}

export async function scoresPage(ctx: ViewContext): Promise<Node> {
  const [page, names] = await Promise.all([
    get<ScorePage>(inProject(ctx.project, '/scores'), listQuery(ctx.query)),
    get<{ data: string[] }>(inProject(ctx.project, '/score-names')),
  ]);
  return h(
    'div',
    { class: 'page' },
    pageHeader(
      'Scores',
      h(
        'a',
        { href: href(`/p/${seg(ctx.project)}/score-configs`), 'data-testid': 'score-configs-link' },
        'Score configs',
      ),
      h('a', { href: href(`/p/${seg(ctx.project)}/annotation-queues`) }, 'Annotation queues'),
    ),
    section('Filters', filterForm(ctx, names.data)),
    section(
      'Scores, newest first',
      table(
        page.data,
        [
          { title: 'Time', cell: (s) => h('span', { class: 'mono nowrap' }, dateTime(s.timestamp)) },
          { title: 'Name', cell: (s) => h('strong', null, s.name) },
          { title: 'Value', cell: (s) => scoreValueText(s), class: 'num' },
          { title: 'Data type', cell: (s) => h('span', { class: 'hint' }, s.dataType) },
          { title: 'Source', cell: (s) => badge(s.source, SOURCE_KIND[s.source]) },
          { title: 'Trace / observation', cell: (s) => subject(ctx.project, s) },
          {
            title: 'Author · comment',
            cell: (s) =>
              h(
                'span',
                null,
                s.author ? h('span', { class: 'nowrap' }, s.author) : null,
                s.comment ? h('div', { class: 'hint clip', title: s.comment }, s.comment) : null,
              ),
          },
        ],
        { testid: 'scores', emptyText: 'No scores match.', rowAttrs: (s) => ({ 'data-score': s.name }) },
      ),
      keysetPager(ctx, page),
    ),
  );
}
