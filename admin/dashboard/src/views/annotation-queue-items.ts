// The items of an annotation queue as a table under the reviewer's panel: what each points at (linked), its status
// and when it was added and completed; all, pending or completed ones, 50 a page, redrawn in place. Any item opens
// in the panel, a completed one with its scores, to change them.
import { get } from '../api.ts';
import { h, replace } from '../dom.ts';
import { dateTime } from '../format.ts';
import { href, seg } from '../router.ts';
import type { Page } from '../types.ts';
import { badge, pager, section, table } from '../ui.ts';

interface QueueItem {
  id: string;
  objectType: 'TRACE' | 'OBSERVATION' | 'SESSION';
  objectId: string;
  traceId: string | null;
  status: 'PENDING' | 'COMPLETED';
  createdAt: string;
  completedAt: string | null;
}

const LIMIT = 50;
const STATUSES = [
  { id: '', label: 'All' },
  { id: 'PENDING', label: 'Pending' },
  { id: 'COMPLETED', label: 'Completed' },
];

function objectLink(project: string, i: QueueItem): HTMLElement {
  if (i.objectType === 'SESSION')
    return h('a', { class: 'mono', href: href(`/p/${seg(project)}/sessions/${seg(i.objectId)}`) }, i.objectId);
  if (!i.traceId) return h('span', { class: 'mono' }, i.objectId);
  const link = h('a', { class: 'mono', href: href(`/p/${seg(project)}/traces/${seg(i.traceId)}`) }, i.traceId);
  return i.objectType === 'TRACE' ? link : h('span', null, link, h('span', { class: 'hint mono' }, ` › ${i.objectId}`));
}

/** The section and what redraws it (after an item is completed); "Open" shows an item in the review panel. */
export function queueItems(
  project: string,
  itemsPath: string,
  open: (id: string) => void,
): { element: HTMLElement; reload(): Promise<void> } {
  let status = '';
  let offset = 0;
  const body = h('div');
  const filter = h(
    'div',
    { class: 'segmented', role: 'group', 'aria-label': 'Item status' },
    STATUSES.map((s) =>
      h(
        'button',
        {
          type: 'button',
          class: `seg${s.id === status ? ' active' : ''}`,
          'data-status': s.id,
          onclick: (e: Event) => {
            status = s.id;
            offset = 0;
            for (const b of filter.children) b.classList.toggle('active', b === e.currentTarget);
            void reload();
          },
        },
        s.label,
      ),
    ),
  );
  async function reload(): Promise<void> {
    const page = await get<Page<QueueItem>>(itemsPath, { status, limit: LIMIT, offset });
    replace(
      body,
      table(
        page.data,
        [
          { title: 'Added', cell: (i) => h('span', { class: 'mono nowrap' }, dateTime(i.createdAt)) },
          { title: 'Type', cell: (i) => h('span', { class: 'hint' }, i.objectType) },
          { title: 'Object', cell: (i) => objectLink(project, i) },
          {
            title: 'Status',
            cell: (i) => (i.status === 'COMPLETED' ? badge('completed', 'ok') : badge('pending', 'warn')),
          },
          { title: 'Completed', cell: (i) => h('span', { class: 'mono nowrap' }, dateTime(i.completedAt)) },
          {
            title: '',
            cell: (i) =>
              h(
                'button',
                { type: 'button', class: 'secondary', 'data-testid': 'open-item', onclick: () => open(i.id) },
                'Open',
              ),
          },
        ],
        { testid: 'queue-items', emptyText: 'No items.', rowAttrs: (i) => ({ 'data-item-row': i.id }) },
      ),
      pager(offset, LIMIT, page.data.length, page.pagination, (o) => {
        offset = o;
        void reload();
      }),
    );
  }
  return { element: section('Items', filter, body), reload };
}
