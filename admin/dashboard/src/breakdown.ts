// One row per agent, model group or deployment: totals and a sparkline, linking to that series' page.
import { sparkline } from './charts.ts';
import { h } from './dom.ts';
import { ms, num, pct, usd } from './format.ts';
import { href, seg } from './router.ts';
import type { Metrics, Series } from './types.ts';
import { table } from './ui.ts';
import type { ViewContext } from './view.ts';

export type Dimension = 'agent' | 'model_group' | 'deployment';

export const DIMENSIONS: { id: Dimension; label: string; plural: string }[] = [
  { id: 'agent', label: 'Agent', plural: 'Agents' },
  { id: 'model_group', label: 'Model group', plural: 'Model groups' },
  { id: 'deployment', label: 'Deployment', plural: 'Deployments' },
];

export function seriesHref(ctx: ViewContext, dimension: Dimension, key: string): string {
  const keep: Record<string, string | null> = {
    window: ctx.query.get('window'),
    from: ctx.query.get('from'),
    to: ctx.query.get('to'),
  };
  return href(`/p/${seg(ctx.project)}/metrics/${dimension}/${seg(key)}`, keep);
}

export function breakdownTable(
  ctx: ViewContext,
  dimension: Dimension,
  metrics: Metrics,
  extra: { title: string; cell: (s: Series) => Node | string | null }[] = [],
): HTMLElement {
  const label = DIMENSIONS.find((d) => d.id === dimension)!.label;
  const rows = [...metrics.series].sort((a, b) => b.totals.requests - a.totals.requests);
  return table(
    rows,
    [
      {
        title: label,
        cell: (s) =>
          h('a', { href: seriesHref(ctx, dimension, s.key), 'data-testid': `series-link-${s.key}` }, s.key || '(none)'),
      },
      { title: 'Requests', cell: (s) => num(s.totals.requests), class: 'num' },
      {
        title: 'Trend',
        cell: (s) =>
          sparkline(
            s.points.map((p) => p.requests),
            `${s.key}: requests per bucket`,
          ),
      },
      { title: 'Error rate', cell: (s) => pct(s.totals.error_rate), class: 'num' },
      { title: 'p95', cell: (s) => ms(s.totals.latency_p95), class: 'num' },
      { title: 'Tokens', cell: (s) => num(s.totals.token_count), class: 'num' },
      { title: 'Cost', cell: (s) => usd(s.totals.cost), class: 'num' },
      ...extra.map((x) => ({ title: x.title, cell: x.cell })),
    ],
    {
      testid: `breakdown-${dimension}`,
      emptyText: 'No traffic in this window.',
      rowAttrs: (s) => ({ 'data-key': s.key }),
    },
  );
}
