// Agents of a project: their traffic over the window (a sparkline each) and, for members and up, suspend and resume.
import { get, inProject, post } from '../api.ts';
import { breakdownTable } from '../breakdown.ts';
import { h } from '../dom.ts';
import { pageWindow, windowPicker } from '../time-window.ts';
import type { Metrics, Page } from '../types.ts';
import { actionButton, badge, pageHeader, section, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';

interface Agent {
  id: string;
  name: string;
  version?: string | null;
  framework?: string | null;
  model?: string | null;
  status: 'active' | 'suspended' | string;
  createdAt?: string;
  declaredInConfig?: boolean;
}

export async function agentsPage(ctx: ViewContext): Promise<Node> {
  const w = await pageWindow(ctx);
  const [agents, metrics] = await Promise.all([
    get<Page<Agent>>(inProject(ctx.project, '/agents')),
    get<Metrics>(inProject(ctx.project, '/metrics'), { ...w, groupBy: 'agent' }),
  ]);
  const setStatus = (a: Agent, verb: 'suspend' | 'resume') => async () => {
    await post(inProject(ctx.project, `/agents/${encodeURIComponent(a.id)}/${verb}`));
    ctx.refresh();
  };
  return h(
    'div',
    { class: 'page' },
    pageHeader('Agents', windowPicker(w, ctx.setQuery)),
    section('Traffic per agent', breakdownTable(ctx, 'agent', metrics)),
    section(
      'Registered agents',
      table(
        agents.data,
        [
          {
            title: 'Agent',
            cell: (a) =>
              h(
                'span',
                null,
                h('strong', null, a.name),
                a.name === a.id ? null : h('span', { class: 'hint' }, ` ${a.id}`),
              ),
          },
          { title: 'Version', cell: (a) => a.version ?? '–' },
          { title: 'Framework', cell: (a) => a.framework ?? '–' },
          { title: 'Model', cell: (a) => a.model ?? '–' },
          { title: 'Status', cell: (a) => badge(a.status, a.status === 'active' ? 'ok' : 'bad') },
          {
            title: '',
            cell: (a) =>
              ctx.canChange
                ? a.status === 'suspended'
                  ? actionButton('Resume', setStatus(a, 'resume'), { testid: `resume-${a.id}` })
                  : actionButton('Suspend', setStatus(a, 'suspend'), {
                      class: 'danger',
                      testid: `suspend-${a.id}`,
                      confirmText: `Suspend ${a.name}? Its keys are refused until it is resumed.`,
                    })
                : null,
          },
        ],
        { testid: 'agents', emptyText: 'No agents registered in this project.' },
      ),
      agents.data.some((a) => a.declaredInConfig)
        ? h('p', { class: 'hint' }, 'Agents declared in gateway.yaml take the file’s status again when it is reloaded.')
        : null,
    ),
  );
}
