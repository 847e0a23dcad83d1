// Time-series charts (uPlot) and table sparklines (SVG).
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { h, svg } from './dom.ts';

export const COLORS = ['#2563eb', '#d97706', '#dc2626', '#059669', '#7c3aed', '#0891b2'];

export interface ChartLine {
  label: string;
  values: (number | null)[];
}

export interface ChartSpec {
  title: string;
  times: number[]; // epoch seconds
  lines: ChartLine[];
  format: (v: number | null) => string;
  testid: string;
}

/** A chart sized to its container; it follows the container's width and is destroyed on cleanup. */
export function timeChart(spec: ChartSpec, onCleanup: (fn: () => void) => void): HTMLElement {
  const plotBox = h('div', { class: 'chart-plot' });
  const box = h('figure', { class: 'chart', 'data-testid': spec.testid }, h('figcaption', null, spec.title), plotBox);
  let plot: uPlot | undefined;
  const observer = new ResizeObserver(() => {
    const width = Math.max(240, Math.floor(plotBox.clientWidth));
    if (plot) plot.setSize({ width, height: 180 });
    else if (plotBox.isConnected && plotBox.clientWidth > 0)
      plot = new uPlot(
        options(spec, width),
        [spec.times, ...spec.lines.map((l) => l.values)] as uPlot.AlignedData,
        plotBox,
      );
  });
  observer.observe(plotBox);
  onCleanup(() => {
    observer.disconnect();
    plot?.destroy();
  });
  return box;
}

function options(spec: ChartSpec, width: number): uPlot.Options {
  const fmt = (v: number | null) => (v === null || v === undefined ? '–' : spec.format(v));
  return {
    width,
    height: 180,
    legend: { live: true },
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: { time: true },
      y: { range: (_u, min, max) => [Math.min(0, min ?? 0), Math.max(max ?? 1, min === max ? (max ?? 0) + 1 : 0)] },
    },
    series: [
      { label: 'time' },
      // Points where a line has few values: a lone bucket between gaps draws no line at all.
      ...spec.lines.map((l, i) => ({
        label: l.label,
        stroke: COLORS[i % COLORS.length],
        width: 1.5,
        spanGaps: false,
        points: { show: l.values.filter((v) => v !== null).length < 40, size: 5 },
        value: (_u: uPlot, v: number | null) => fmt(v),
      })),
    ],
    axes: [
      { stroke: '#6b7280', grid: { stroke: '#eef0f3' }, ticks: { stroke: '#e5e7eb' } },
      {
        stroke: '#6b7280',
        grid: { stroke: '#eef0f3' },
        ticks: { stroke: '#e5e7eb' },
        size: axisWidth,
        values: (_u, vals) => vals.map((v) => fmt(v)),
      },
    ],
  };
}

/** Room for the longest tick label (uPlot's default clips labels like `$0.000040`). */
function axisWidth(_u: uPlot, values: string[] | null): number {
  const longest = Math.max(0, ...(values ?? []).map((v) => v.length));
  return Math.max(40, Math.ceil(longest * 7 + 18));
}

/** A small line of the values, no axes: the shape of a trend in a table row. */
export function sparkline(values: (number | null)[], label: string): SVGElement {
  const w = 120;
  const hgt = 28;
  const nums = values.map((v) => v ?? 0);
  const max = Math.max(...nums, 0);
  const step = nums.length > 1 ? w / (nums.length - 1) : 0;
  const y = (v: number) => (max === 0 ? hgt - 2 : hgt - 2 - (v / max) * (hgt - 4));
  const points = nums.map((v, i) => `${(i * step).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const title = svg('title');
  title.textContent = label;
  return svg(
    'svg',
    { class: 'sparkline', width: w, height: hgt, viewBox: `0 0 ${w} ${hgt}`, role: 'img', 'aria-label': label },
    title,
    svg('polyline', {
      points: nums.length === 1 ? `0,${y(nums[0]!)} ${w},${y(nums[0]!)}` : points,
      fill: 'none',
      stroke: COLORS[0]!,
      'stroke-width': 1.5,
    }),
  );
}
