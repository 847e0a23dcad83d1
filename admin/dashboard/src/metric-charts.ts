// The totals and the five charts of one metrics series: latency, throughput, error rate, tokens, cost.
import { timeChart } from './charts.ts';
import { h } from './dom.ts';
import { epochSeconds, ms, num, pct, rate, usd } from './format.ts';
import type { Point, Series } from './types.ts';
import { stat } from './ui.ts';

export function totalsRow(t: Point): HTMLElement {
  return h(
    'div',
    { class: 'stats', 'data-testid': 'totals' },
    stat('Requests', num(t.requests), 'total-requests'),
    stat('Errors', num(t.errors), 'total-errors'),
    stat('Error rate', pct(t.error_rate), 'total-error-rate'),
    stat(
      'Latency p50 / p95 / p99',
      `${ms(t.latency_p50)} / ${ms(t.latency_p95)} / ${ms(t.latency_p99)}`,
      'total-latency',
      true,
    ),
    stat('Throughput', rate(t.throughput), 'total-throughput'),
    stat('Tokens', num(t.token_count), 'total-tokens'),
    stat('Cost', usd(t.cost), 'total-cost'),
  );
}

/** The price components' names (src/platform/pricing/cost.ts keys) as the cost chart's legend shows them. */
const COMPONENT_LABELS: Record<string, string> = {
  input: 'input',
  input_cached_tokens: 'cache reads',
  input_cache_creation: 'cache writes 5m',
  input_cache_creation_1h: 'cache writes 1h',
  output: 'output',
  output_reasoning_tokens: 'reasoning',
};

/** The charts of one series; the cost chart also draws a line per price component when `costComponents` has them. */
export function seriesCharts(
  series: Series | undefined,
  onCleanup: (fn: () => void) => void,
  costComponents: Series[] = [],
): HTMLElement {
  const points = series?.points ?? [];
  const times = points.map((p) => epochSeconds(p.t));
  const col = (k: keyof Point) => points.map((p) => (p[k] === undefined ? null : (p[k] as number | null)));
  return h(
    'div',
    { class: 'charts' },
    timeChart(
      {
        title: 'Latency (ms)',
        times,
        lines: [
          { label: 'p50', values: col('latency_p50') },
          { label: 'p95', values: col('latency_p95') },
          { label: 'p99', values: col('latency_p99') },
        ],
        format: (v) => ms(v),
        testid: 'chart-latency',
      },
      onCleanup,
    ),
    timeChart(
      {
        title: 'Throughput (req/s)',
        times,
        lines: [{ label: 'req/s', values: col('throughput') }],
        format: (v) => String(Number(v?.toFixed(3))),
        testid: 'chart-throughput',
      },
      onCleanup,
    ),
    timeChart(
      {
        title: 'Error rate (%)',
        times,
        lines: [{ label: 'errors %', values: col('error_rate') }],
        format: (v) => `${Number(v?.toFixed(2))}%`,
        testid: 'chart-error-rate',
      },
      onCleanup,
    ),
    timeChart(
      {
        title: 'Tokens',
        times,
        lines: [{ label: 'tokens', values: col('token_count') }],
        format: (v) => num(v),
        testid: 'chart-tokens',
      },
      onCleanup,
    ),
    timeChart(
      {
        title: 'Cost (USD)',
        times,
        lines: [
          { label: costComponents.length > 0 ? 'total' : 'USD', values: col('cost') },
          ...costComponents.map((c) => ({
            label: COMPONENT_LABELS[c.key] ?? c.key,
            values: c.points.map((p) => p.cost),
          })),
        ],
        format: (v) => usd(v),
        testid: 'chart-cost',
      },
      onCleanup,
    ),
  );
}
