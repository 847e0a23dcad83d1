// The organization's audit log, newest first.
import { get } from '../api.ts';
import { h } from '../dom.ts';
import { asText, dateTime } from '../format.ts';
import type { Page } from '../types.ts';
import { pageHeader, pager, section, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';

interface AuditRow {
  id: string;
  at: string;
  actor: string;
  action: string;
  target: string;
  projectId?: string | null;
  details?: unknown;
}

const LIMIT = 50;

/** `gateway_key:e9d6370a-6e3f-…` → `gateway_key:e9d6370a…`; the whole target is the cell's tooltip. */
const shortTarget = (target: string) => target.replace(/^([^:]+:)([0-9a-f]{8})-[0-9a-f-]{27}$/, '$1$2…');

export async function auditPage(ctx: ViewContext): Promise<Node> {
  const offset = Math.max(0, Number(ctx.query.get('offset') ?? 0) || 0);
  const page = await get<Page<AuditRow>>('/audit', { limit: LIMIT, offset });
  return h(
    'div',
    { class: 'page' },
    pageHeader('Audit log'),
    section(
      'Changes and sign-ins',
      table(
        page.data,
        [
          { title: 'At', cell: (r) => h('span', { class: 'mono nowrap' }, dateTime(r.at)) },
          { title: 'Actor', cell: (r) => r.actor },
          { title: 'Action', cell: (r) => h('code', null, r.action) },
          { title: 'Target', cell: (r) => h('span', { class: 'mono nowrap', title: r.target }, shortTarget(r.target)) },
          { title: 'Project', cell: (r) => r.projectId ?? '–' },
          {
            title: 'Details',
            cell: (r) =>
              r.details && Object.keys(r.details).length
                ? h('span', { class: 'mono clip', title: asText(r.details) }, JSON.stringify(r.details))
                : '',
          },
        ],
        { testid: 'audit', emptyText: 'No audit entries.' },
      ),
      pager(offset, LIMIT, page.data.length, page.pagination, (o) => ctx.setQuery({ offset: String(o) })),
    ),
  );
}
