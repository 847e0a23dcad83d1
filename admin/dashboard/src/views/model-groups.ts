// Model groups as the serving configuration declares them, with each deployment's health and bench state (read-only).
import { get } from '../api.ts';
import { h } from '../dom.ts';
import { dateTime } from '../format.ts';
import type { Page } from '../types.ts';
import { badge, empty, pageHeader, section, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';

interface Deployment {
  id: string;
  provider: string;
  model?: string | null;
  weight?: number;
  healthy: boolean;
  benchedUntil?: string | null;
  unavailableReason?: string | null;
}

interface Group {
  name: string;
  fallback?: string | null;
  routing?: Record<string, unknown>;
  deployments: Deployment[];
}

function state(d: Deployment): HTMLElement {
  if (d.benchedUntil) return badge(`benched until ${dateTime(d.benchedUntil)}`, 'warn');
  if (d.unavailableReason) return badge(`unavailable: ${d.unavailableReason}`, 'bad');
  return d.healthy ? badge('healthy', 'ok') : badge('unhealthy', 'bad');
}

export async function modelGroupsPage(_ctx: ViewContext): Promise<Node> {
  const groups = await get<Page<Group>>('/model-groups');
  return h(
    'div',
    { class: 'page' },
    pageHeader('Model groups'),
    groups.data.length === 0
      ? empty('No model groups configured.')
      : groups.data.map((g) =>
          section(
            g.name,
            h(
              'p',
              { class: 'hint' },
              g.fallback ? `Falls back to ${g.fallback}.` : 'No fallback.',
              g.routing
                ? ` Routing: ${Object.entries(g.routing)
                    .map(([k, v]) => `${k} ${v}`)
                    .join(', ')}.`
                : '',
            ),
            table(
              g.deployments,
              [
                { title: 'Deployment', cell: (d) => h('code', null, d.id) },
                { title: 'Provider', cell: (d) => d.provider },
                { title: 'Model', cell: (d) => d.model ?? '–' },
                { title: 'Weight', cell: (d) => (d.weight === undefined ? '–' : String(d.weight)), class: 'num' },
                { title: 'State', cell: state },
              ],
              { testid: `model-group-${g.name}` },
            ),
          ),
        ),
    h('p', { class: 'hint' }, 'Model groups are changed in gateway.yaml.'),
  );
}
