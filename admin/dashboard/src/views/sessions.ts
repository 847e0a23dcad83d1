// Sessions of a project (traces sharing a session id): a paged list with totals, and one session as a conversation,
// its traces in order with their input and output, its totals, and the budgets of the gateway keys its calls used.
import { get, inProject } from '../api.ts';
import { chatBubbles } from '../chat-turns.ts';
import { h } from '../dom.ts';
import { dateTime, ms, num, usd } from '../format.ts';
import { href, seg } from '../router.ts';
import type { Page } from '../types.ts';
import { pageHeader, pager, section, stat, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';
import type { SessionSummary } from '../../../../src/platform/store/repos/session-summaries.ts';
import { statusBadge, traceLink } from './traces.ts';

export type { SessionSummary };

interface SessionTurn {
  id: string;
  name: string | null;
  status: string;
  source: string;
  startTime: string;
  duration: number | null;
  userId: string | null;
  tokens: number;
  cost: number;
  input: unknown;
  output: unknown;
}

interface SessionDetail extends SessionSummary {
  environment: string;
  gatewayKeys: string[];
  traces: SessionTurn[];
}

interface BudgetRow {
  scope: string;
  name: string;
  kind: string;
  period: string;
  periodId: string;
  limitUsd: number;
  spentUsd: number;
}

const LIMIT = 50;

/** From the first trace's start to the last trace's end. */
const spanMs = (s: Pick<SessionSummary, 'firstSeen' | 'lastSeen'>) => Date.parse(s.lastSeen) - Date.parse(s.firstSeen);

export const sessionLink = (project: string, id: string) =>
  h('a', { href: href(`/p/${seg(project)}/sessions/${seg(id)}`), 'data-testid': 'session-link', class: 'mono' }, id);

export const traceUserLink = (project: string, id: string) =>
  h('a', { href: href(`/p/${seg(project)}/end-users/${seg(id)}`), 'data-testid': 'user-link' }, id);

/** The columns a session row shows, on the sessions list and a user's page. */
export function sessionTable(project: string, rows: SessionSummary[], testid: string): HTMLElement {
  return table(
    rows,
    [
      { title: 'Session', cell: (s) => sessionLink(project, s.id) },
      { title: 'User', cell: (s) => (s.userId ? traceUserLink(project, s.userId) : '–') },
      { title: 'First seen', cell: (s) => h('span', { class: 'mono nowrap' }, dateTime(s.firstSeen)) },
      { title: 'Last seen', cell: (s) => h('span', { class: 'mono nowrap' }, dateTime(s.lastSeen)) },
      { title: 'Traces', cell: (s) => num(s.traceCount), class: 'num' },
      { title: 'Duration', cell: (s) => ms(spanMs(s)), class: 'num' },
      { title: 'Latency (sum)', cell: (s) => ms(s.latencyMs), class: 'num' },
      { title: 'Tokens', cell: (s) => num(s.tokens), class: 'num' },
      { title: 'Cost', cell: (s) => usd(s.cost), class: 'num' },
    ],
    { testid, emptyText: 'No sessions yet: traces name theirs in sessionId.' },
  );
}

export async function sessionsPage(ctx: ViewContext): Promise<Node> {
  const offset = Math.max(0, Number(ctx.query.get('offset') ?? 0) || 0);
  const page = await get<Page<SessionSummary>>(inProject(ctx.project, '/sessions'), { limit: LIMIT, offset });
  return h(
    'div',
    { class: 'page' },
    pageHeader('Sessions'),
    section(
      'Sessions, newest first',
      sessionTable(ctx.project, page.data, 'sessions'),
      pager(offset, LIMIT, page.data.length, page.pagination, (o) => ctx.setQuery({ offset: String(o) })),
    ),
  );
}

function turn(project: string, t: SessionTurn, index: number): HTMLElement {
  return h(
    'article',
    { class: 'turn', 'data-testid': 'session-turn', 'data-trace-id': t.id },
    h(
      'header',
      { class: 'turn-head' },
      h('span', { class: 'turn-index' }, `#${index + 1}`),
      traceLink(project, t),
      statusBadge(t.status),
      h('span', { class: 'spacer' }),
      h('span', { class: 'mono nowrap hint' }, dateTime(t.startTime)),
      h('span', { class: 'turn-fact' }, ms(t.duration)),
      h('span', { class: 'turn-fact' }, `${num(t.tokens)} tok`),
      h('span', { class: 'turn-fact' }, usd(t.cost)),
    ),
    h('div', { class: 'turn-body' }, chatBubbles(t.input, 'in'), chatBubbles(t.output, 'out')),
  );
}

/** The budgets of the gateway keys the session's calls went through: what each key has spent of its limit. */
async function keyBudgets(project: string, keys: string[], gatewayCost: number): Promise<HTMLElement | null> {
  if (keys.length === 0) return null;
  const budgets = await get<Page<BudgetRow>>(inProject(project, '/budgets'));
  const rows = budgets.data.filter((b) => b.scope === 'key' && keys.includes(b.name));
  if (rows.length === 0) return null;
  return section(
    'Gateway key budgets',
    h(
      'p',
      { class: 'hint', 'data-testid': 'session-budgets-hint' },
      `This session's gateway calls cost ${usd(gatewayCost)}; each key's spend is over all its calls.`,
    ),
    table(
      rows,
      [
        { title: 'Key', cell: (b) => h('span', { class: 'mono' }, b.name) },
        { title: 'Budget', cell: (b) => `${b.kind} · ${b.period}${b.period === 'total' ? '' : ` (${b.periodId})`}` },
        { title: 'Spent', cell: (b) => usd(b.spentUsd), class: 'num' },
        { title: 'Limit', cell: (b) => usd(b.limitUsd), class: 'num' },
        {
          title: 'Used',
          cell: (b) =>
            h(
              'div',
              { class: 'meter', title: `${Math.round((b.spentUsd / b.limitUsd) * 100)} %` },
              h('div', {
                class: 'meter-fill',
                style: `width: ${Math.min(100, (b.spentUsd / b.limitUsd) * 100).toFixed(1)}%`,
              }),
            ),
        },
      ],
      { testid: 'session-budgets' },
    ),
  );
}

export async function sessionPage(ctx: ViewContext): Promise<Node> {
  const id = ctx.params.id!;
  const s = await get<SessionDetail>(inProject(ctx.project, `/sessions/${seg(id)}`));
  const gatewayCost = s.traces.filter((t) => t.source === 'gateway').reduce((n, t) => n + t.cost, 0);
  const budgets = await keyBudgets(ctx.project, s.gatewayKeys, gatewayCost);
  return h(
    'div',
    { class: 'page' },
    pageHeader(
      `Session ${id}`,
      h(
        'a',
        { href: href(`/p/${seg(ctx.project)}/traces`, { sessionId: id }), 'data-testid': 'session-traces-link' },
        'In the trace list',
      ),
    ),
    h(
      'p',
      { class: 'crumbs' },
      h('a', { href: href(`/p/${seg(ctx.project)}/sessions`) }, 'Sessions'),
      ' / ',
      id,
      s.userIds.length > 0 ? ' · user ' : '',
      s.userIds.flatMap((u, i) => [i > 0 ? ', ' : '', traceUserLink(ctx.project, u)]),
    ),
    h(
      'div',
      { class: 'stats' },
      stat('Traces', num(s.traceCount), 'session-traces'),
      stat('Total cost', usd(s.cost), 'session-cost'),
      stat('Total tokens', num(s.tokens), 'session-tokens'),
      stat('Total latency', ms(s.latencyMs), 'session-latency'),
      stat('Duration', ms(spanMs(s)), 'session-duration'),
      stat('First seen', dateTime(s.firstSeen), 'session-first', true),
    ),
    budgets,
    section(
      'Conversation',
      h(
        'div',
        { class: 'conversation', 'data-testid': 'conversation' },
        s.traces.map((t, i) => turn(ctx.project, t, i)),
      ),
    ),
  );
}
