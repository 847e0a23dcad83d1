// The page of one agent, model group or deployment: its totals and charts over the chosen window.
import { get, inProject, type Query } from '../api.ts';
import { DIMENSIONS, type Dimension } from '../breakdown.ts';
import { h } from '../dom.ts';
import { dateTime } from '../format.ts';
import { seriesCharts, totalsRow } from '../metric-charts.ts';
import { href, seg } from '../router.ts';
import type { Metrics, Point } from '../types.ts';
import { empty, pageHeader } from '../ui.ts';
import { pageWindow, windowPicker } from '../time-window.ts';
import type { ViewContext } from '../view.ts';
import { bucketLabel } from './metrics.ts';

const ZERO: Point = {
  requests: 0,
  errors: 0,
  latency_p50: null,
  latency_p95: null,
  latency_p99: null,
  throughput: 0,
  error_rate: 0,
  token_count: 0,
  cost: 0,
};

export async function seriesPage(ctx: ViewContext): Promise<Node> {
  const dimension = ctx.params.dimension as Dimension;
  const info = DIMENSIONS.find((d) => d.id === dimension);
  if (!info) return empty('Unknown breakdown.');
  const key = ctx.params.key!;
  // Agents and model groups have filters; a deployment is one series of the deployment breakdown.
  const filter: Query =
    dimension === 'agent'
      ? { agent: key }
      : dimension === 'model_group'
        ? { modelGroup: key }
        : { groupBy: 'deployment' };
  const w = await pageWindow(ctx);
  const metrics = await get<Metrics>(inProject(ctx.project, '/metrics'), { ...w, ...filter });
  const series = dimension === 'deployment' ? metrics.series.find((s) => s.key === key) : metrics.series[0];
  const totals = dimension === 'deployment' ? (series?.totals ?? ZERO) : metrics.totals;
  const traceFilter = dimension === 'agent' ? { agent: key } : dimension === 'model_group' ? { modelGroup: key } : {};
  return h(
    'div',
    { class: 'page', 'data-testid': `series-page-${dimension}` },
    h(
      'p',
      { class: 'crumbs' },
      h('a', { href: href(`/p/${seg(ctx.project)}/metrics`, { by: dimension }) }, 'Metrics'),
      ` › ${info.plural}`,
    ),
    pageHeader(`${info.label}: ${key}`, windowPicker(w, ctx.setQuery)),
    h(
      'p',
      { class: 'range' },
      `${dateTime(metrics.from)} → ${dateTime(metrics.to)} · ${bucketLabel(metrics.bucketSeconds)} buckets`,
      dimension === 'deployment'
        ? null
        : [' · ', h('a', { href: href(`/p/${seg(ctx.project)}/traces`, traceFilter) }, 'Traces')],
    ),
    totalsRow(totals),
    seriesCharts(series, ctx.onCleanup),
  );
}
