// A dataset's runs side by side per metric: a small bar chart for each score's average, the average latency and the
// average cost, one bar per run (the oldest on top), each as long as its value against the metric's largest.
import { h } from '../dom.ts';
import { ms, usd } from '../format.ts';
import { COLORS } from '../charts.ts';
import type { DatasetRun } from './datasets.ts';

/** A score's value as shown: at most three decimals. */
export const roundScore = (v: number) => String(Number(v.toFixed(3)));

interface Metric {
  title: string;
  value: (r: DatasetRun) => number | null;
  format: (v: number) => string;
}

function bars(metric: Metric, runs: DatasetRun[]): HTMLElement {
  const max = Math.max(0, ...runs.map((r) => metric.value(r) ?? 0));
  return h(
    'figure',
    { class: 'chart run-bars', 'data-testid': 'run-bars', 'data-metric': metric.title },
    h('figcaption', null, metric.title),
    runs.map((r, i) => {
      const v = metric.value(r);
      const width = v === null || max === 0 ? 0 : (v / max) * 100;
      return h(
        'div',
        { class: 'run-bar', 'data-run': r.name },
        h('span', { class: 'run-bar-name', title: r.name }, r.name),
        h(
          'span',
          { class: 'run-bar-track' },
          h('span', {
            class: 'run-bar-fill',
            style: `width: ${width.toFixed(1)}%; background: ${COLORS[i % COLORS.length]}`,
          }),
        ),
        h('span', { class: 'run-bar-value' }, v === null ? '–' : metric.format(v)),
      );
    }),
  );
}

/** Nothing for fewer than two runs: there is nothing to set side by side. */
export function runBars(runs: DatasetRun[]): HTMLElement | null {
  if (runs.length < 2) return null;
  const oldestFirst = [...runs].reverse();
  const scoreNames = [...new Set(runs.flatMap((r) => Object.keys(r.avgScores)))];
  const metrics: Metric[] = [
    ...scoreNames.map((n) => ({ title: n, value: (r: DatasetRun) => r.avgScores[n] ?? null, format: roundScore })),
    { title: 'Avg latency', value: (r) => r.avgLatencyMs, format: ms },
    { title: 'Avg cost', value: (r) => r.avgCost, format: usd },
  ];
  return h(
    'div',
    { class: 'charts run-charts' },
    metrics.map((m) => bars(m, oldestFirst)),
  );
}
