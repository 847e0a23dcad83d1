// Metrics and trends of a project over the chosen window, the gateway panels, and a breakdown table.
import { get, inProject } from '../api.ts';
import { h } from '../dom.ts';
import { dateTime, num, pct } from '../format.ts';
import { seriesCharts, totalsRow } from '../metric-charts.ts';
import { breakdownTable, DIMENSIONS, type Dimension } from '../breakdown.ts';
import type { GatewayPanels, Metrics } from '../types.ts';
import { empty, pageHeader, section, table } from '../ui.ts';
import { pageWindow, windowPicker } from '../time-window.ts';
import type { ViewContext } from '../view.ts';

export async function metricsPage(ctx: ViewContext): Promise<Node> {
  const w = await pageWindow(ctx);
  const by = (DIMENSIONS.find((d) => d.id === ctx.query.get('by'))?.id ?? 'agent') as Dimension;
  const [metrics, panels, breakdown, costComponents] = await Promise.all([
    get<Metrics>(inProject(ctx.project, '/metrics'), w),
    get<GatewayPanels>(inProject(ctx.project, '/gateway-panels'), w),
    get<Metrics>(inProject(ctx.project, '/metrics'), { ...w, groupBy: by }),
    get<Metrics>(inProject(ctx.project, '/metrics'), { ...w, groupBy: 'cost_component' }),
  ]);
  const tabs = h(
    'div',
    { class: 'segmented', role: 'tablist' },
    DIMENSIONS.map((d) =>
      h(
        'button',
        {
          type: 'button',
          role: 'tab',
          class: `seg${d.id === by ? ' active' : ''}`,
          'aria-selected': String(d.id === by),
          onclick: () => ctx.setQuery({ by: d.id }),
        },
        d.plural,
      ),
    ),
  );
  return h(
    'div',
    { class: 'page' },
    pageHeader('Metrics', windowPicker(w, ctx.setQuery)),
    h(
      'p',
      { class: 'range' },
      `${dateTime(metrics.from)} → ${dateTime(metrics.to)} · ${bucketLabel(metrics.bucketSeconds)} buckets`,
    ),
    totalsRow(metrics.totals),
    seriesCharts(metrics.series[0], ctx.onCleanup, costComponents.series),
    section('Breakdown', tabs, breakdownTable(ctx, by, breakdown)),
    gatewayPanels(panels),
  );
}

export function bucketLabel(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

function gatewayPanels(p: GatewayPanels): HTMLElement {
  return h(
    'div',
    { class: 'grid-2' },
    section(
      'Refusals by code',
      table(
        p.refusals,
        [
          { title: 'Code', cell: (r) => h('code', null, r.code) },
          { title: 'Count', cell: (r) => num(r.count), class: 'num' },
        ],
        { testid: 'refusals', emptyText: 'No refusals in this window.' },
      ),
    ),
    section(
      'Cache and fallbacks',
      h(
        'dl',
        { class: 'facts' },
        h('dt', null, 'Cache hit rate'),
        h(
          'dd',
          { 'data-testid': 'cache-hit-rate' },
          p.cache.lookups === 0
            ? '– (no lookups)'
            : `${pct((p.cache.hits / p.cache.lookups) * 100)} (${num(p.cache.hits)} of ${num(p.cache.lookups)})`,
        ),
        h('dt', null, 'Fallbacks'),
        h('dd', { 'data-testid': 'fallbacks' }, num(p.fallbacks)),
      ),
    ),
    section(
      'Benched deployments',
      p.benched.length === 0
        ? empty('No deployment is benched.')
        : table(
            p.benched,
            [
              { title: 'Model group', cell: (b) => b.modelGroup },
              { title: 'Deployment', cell: (b) => b.deployment },
              { title: 'Until', cell: (b) => dateTime(b.until) },
            ],
            { testid: 'benched' },
          ),
    ),
  );
}
