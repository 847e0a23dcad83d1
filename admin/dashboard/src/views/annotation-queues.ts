// Annotation queues of a project: each queue's score configs and how many of its items are pending and completed,
// linking to the queue a reviewer works through; members create queues from the active score configs.
import { get, inProject, post } from '../api.ts';
import { h } from '../dom.ts';
import { dateTime, num } from '../format.ts';
import { href, seg } from '../router.ts';
import type { ScoreConfig } from '../score-input.ts';
import { field, pageHeader, section, submitHandler, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';

export interface QueueRow {
  id: string;
  name: string;
  description: string | null;
  scoreConfigs: ScoreConfig[];
  pending: number;
  completed: number;
  createdAt: string;
}

export const queueHref = (project: string, id: string) => href(`/p/${seg(project)}/annotation-queues/${seg(id)}`);

function createForm(ctx: ViewContext, configs: ScoreConfig[]): HTMLElement {
  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: 255 });
  const description = h('input', { type: 'text', name: 'description' });
  const checks = configs.map((c) => h('input', { type: 'checkbox', value: c.id }));
  const message = h('p', { class: 'inline-error', role: 'alert' });
  return h(
    'form',
    {
      class: 'form',
      'data-testid': 'queue-form',
      onsubmit: submitHandler(message, null, async () => {
        await post(inProject(ctx.project, '/annotation-queues'), {
          name: name.value.trim(),
          description: description.value.trim() || null,
          scoreConfigIds: checks.filter((c) => c.checked).map((c) => c.value),
        });
        ctx.refresh();
      }),
    },
    h('div', { class: 'row' }, field('Name', name), field('Description', description)),
    field(
      'Score configs',
      configs.length
        ? h(
            'div',
            { class: 'checks' },
            configs.map((c, i) => h('label', null, checks[i], c.name)),
          )
        : h('span', { class: 'hint' }, 'No active score configs: create some first.'),
    ),
    message,
    h('div', null, h('button', { type: 'submit', class: 'primary' }, 'Create queue')),
  );
}

export async function annotationQueuesPage(ctx: ViewContext): Promise<Node> {
  const [queues, configs] = await Promise.all([
    get<{ data: QueueRow[] }>(inProject(ctx.project, '/annotation-queues')),
    get<{ data: ScoreConfig[] }>(inProject(ctx.project, '/score-configs')),
  ]);
  return h(
    'div',
    { class: 'page' },
    pageHeader('Annotation queues', h('a', { href: href(`/p/${seg(ctx.project)}/score-configs`) }, 'Score configs')),
    section(
      'Queues',
      table(
        queues.data,
        [
          {
            title: 'Name',
            cell: (q) => h('a', { href: queueHref(ctx.project, q.id), 'data-testid': 'queue-link' }, q.name),
          },
          { title: 'Description', cell: (q) => q.description ?? '' },
          {
            title: 'Score configs',
            cell: (q) =>
              h(
                'ul',
                { class: 'chips' },
                q.scoreConfigs.map((c) => h('li', null, h('span', { class: 'chip' }, c.name))),
              ),
          },
          { title: 'Pending', cell: (q) => num(q.pending), class: 'num' },
          { title: 'Completed', cell: (q) => num(q.completed), class: 'num' },
          { title: 'Created', cell: (q) => h('span', { class: 'mono nowrap' }, dateTime(q.createdAt)) },
        ],
        {
          testid: 'queues',
          emptyText: 'No annotation queues yet.',
          rowAttrs: (q) => ({ 'data-queue': q.name }),
        },
      ),
    ),
    ctx.canChange
      ? section(
          'New queue',
          createForm(
            ctx,
            configs.data.filter((c) => !c.isArchived),
          ),
        )
      : null,
  );
}
