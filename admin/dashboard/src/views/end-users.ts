// The users of a project's traces (the `userId` an application gives its traces, not the dashboard's own users): a
// paged list with totals, and one user's page with traces, sessions, tokens and cost per day, latest traces and
// sessions.
import { get, inProject } from '../api.ts';
import { timeChart } from '../charts.ts';
import { h } from '../dom.ts';
import { dateTime, num, usd } from '../format.ts';
import { href, seg } from '../router.ts';
import type { Page } from '../types.ts';
import { pageHeader, pager, section, stat, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';
import type { TraceUserDay, TraceUserSummary } from '../../../../src/platform/store/repos/trace-users.ts';
import { sessionLink, sessionTable, traceUserLink, type SessionSummary } from './sessions.ts';
import { traceTable, type TraceSummary } from './traces.ts';

interface TraceUserDetail extends TraceUserSummary {
  days: TraceUserDay[];
  sessions: SessionSummary[];
}

const LIMIT = 50;
const LATEST_TRACES = 20;
const DAY_S = 86_400;
const MIN_DAYS = 30;

export async function endUsersPage(ctx: ViewContext): Promise<Node> {
  const offset = Math.max(0, Number(ctx.query.get('offset') ?? 0) || 0);
  const page = await get<Page<TraceUserSummary>>(inProject(ctx.project, '/trace-users'), { limit: LIMIT, offset });
  return h(
    'div',
    { class: 'page' },
    pageHeader('End users'),
    h('p', { class: 'hint' }, 'The users your traces name in userId, most recently seen first.'),
    section(
      'Users',
      table(
        page.data,
        [
          { title: 'User', cell: (u) => traceUserLink(ctx.project, u.id) },
          { title: 'Traces', cell: (u) => num(u.traceCount), class: 'num' },
          { title: 'Sessions', cell: (u) => num(u.sessionCount), class: 'num' },
          { title: 'Tokens', cell: (u) => num(u.tokens), class: 'num' },
          { title: 'Cost', cell: (u) => usd(u.cost), class: 'num' },
          { title: 'First seen', cell: (u) => h('span', { class: 'mono nowrap' }, dateTime(u.firstSeen)) },
          { title: 'Last seen', cell: (u) => h('span', { class: 'mono nowrap' }, dateTime(u.lastSeen)) },
        ],
        { testid: 'end-users', emptyText: 'No users yet: traces name theirs in userId.' },
      ),
      pager(offset, LIMIT, page.data.length, page.pagination, (o) => ctx.setQuery({ offset: String(o) })),
    ),
  );
}

/**
 * Every day from the first active one (or, for a newer user, 30 days back) to today, the days without traces at zero:
 * the chart shows the quiet, and a user of one day still gets a readable axis.
 */
function dailySeries(days: TraceUserDay[]): {
  times: number[];
  values: Record<keyof Omit<TraceUserDay, 'day'>, number[]>;
} {
  const dayStart = (iso: string) => Date.parse(`${iso.slice(0, 10)}T00:00:00Z`) / 1000;
  const byDay = new Map(days.map((d) => [dayStart(d.day), d]));
  const last = Math.max(dayStart(new Date().toISOString()), ...byDay.keys());
  const first = Math.min(last - (MIN_DAYS - 1) * DAY_S, ...byDay.keys());
  const times: number[] = [];
  for (let t = first; t <= last; t += DAY_S) times.push(t);
  const pick = (k: keyof Omit<TraceUserDay, 'day'>) => times.map((t) => byDay.get(t)?.[k] ?? 0);
  return {
    times,
    values: { traces: pick('traces'), sessions: pick('sessions'), tokens: pick('tokens'), cost: pick('cost') },
  };
}

export async function endUserPage(ctx: ViewContext): Promise<Node> {
  const id = ctx.params.id!;
  const [u, latest] = await Promise.all([
    get<TraceUserDetail>(inProject(ctx.project, `/trace-users/${seg(id)}`)),
    get<Page<TraceSummary>>(inProject(ctx.project, '/traces'), { userId: id, limit: LATEST_TRACES }),
  ]);
  const { times, values } = dailySeries(u.days);
  const chart = (title: string, lines: Record<string, number[]>, format: (v: number) => string, testid: string) =>
    timeChart(
      {
        title,
        times,
        lines: Object.entries(lines).map(([label, values]) => ({ label, values })),
        format: (v) => (v === null ? '–' : format(v)),
        testid,
      },
      ctx.onCleanup,
    );
  const tracesOfUser = href(`/p/${seg(ctx.project)}/traces`, { userId: id });
  return h(
    'div',
    { class: 'page' },
    pageHeader(`User ${id}`, h('a', { href: tracesOfUser, 'data-testid': 'user-traces-link' }, 'All their traces')),
    h('p', { class: 'crumbs' }, h('a', { href: href(`/p/${seg(ctx.project)}/end-users`) }, 'End users'), ' / ', id),
    h(
      'div',
      { class: 'stats' },
      stat('Traces', num(u.traceCount), 'user-traces'),
      stat('Sessions', num(u.sessionCount), 'user-sessions'),
      stat('Tokens', num(u.tokens), 'user-tokens'),
      stat('Cost', usd(u.cost), 'user-cost'),
      stat('First seen', dateTime(u.firstSeen), 'user-first', true),
      stat('Last seen', dateTime(u.lastSeen), 'user-last', true),
    ),
    h(
      'div',
      { class: 'charts' },
      chart(
        'Traces and sessions per day',
        { traces: values.traces, sessions: values.sessions },
        num,
        'user-activity-chart',
      ),
      chart('Tokens per day', { tokens: values.tokens }, num, 'user-tokens-chart'),
      chart('Cost per day (USD)', { cost: values.cost }, usd, 'user-cost-chart'),
    ),
    section('Latest sessions', sessionTable(ctx.project, u.sessions, 'user-sessions-table')),
    section(
      'Latest traces',
      traceTable(
        ctx.project,
        latest.data,
        [{ title: 'Session', cell: (t) => (t.sessionId ? sessionLink(ctx.project, t.sessionId) : '–') }],
        { testid: 'user-latest-traces', emptyText: 'No traces.' },
      ),
      h('a', { href: tracesOfUser }, 'All their traces in the trace list →'),
    ),
  );
}
