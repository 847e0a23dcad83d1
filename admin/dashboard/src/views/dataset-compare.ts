// Runs of a dataset side by side (or one run alone): one row per item (its input and expected output), one column per run with the
// run's output, scores, latency and cost for that item, and a first row of each run's averages. The first run picked
// is the baseline: an output that differs from its output and a score that differs from its score are marked, the
// score with its difference.
import { get } from '../api.ts';
import { h } from '../dom.ts';
import { asText, ms, num, usd } from '../format.ts';
import { href, seg } from '../router.ts';
import { pageHeader, section, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';
import type { RunItemResult, RunItemScore } from '../../../../src/platform/store/repos/dataset-summaries.ts';
import { roundScore } from './dataset-run-bars.ts';
import {
  datasetApi,
  datasetCrumbs,
  jsonCell,
  scoreChips,
  type Dataset,
  type DatasetItem,
  type DatasetRun,
} from './datasets.ts';

interface ComparedItem extends Partial<DatasetItem> {
  id: string;
  /** The item was deleted after the runs ran it. */
  deleted?: true;
  results: Record<string, RunItemResult | null>;
}

interface Comparison {
  dataset: Dataset;
  runs: DatasetRun[];
  items: ComparedItem[];
}

const scoreText = (s: RunItemScore) => s.stringValue ?? (s.value === null ? '–' : roundScore(s.value));

function signed(v: number): string {
  return `${v > 0 ? '+' : ''}${roundScore(v)}`;
}

/** A score as a chip; marked (with its difference when numeric) when it is not the baseline's. */
function scoreChip(s: RunItemScore, base: RunItemScore | undefined, isBaseline: boolean): HTMLElement {
  const differs = !isBaseline && base !== undefined && scoreText(base) !== scoreText(s);
  const delta = differs && s.value !== null && base!.value !== null ? ` (${signed(s.value - base!.value)})` : '';
  return h(
    'span',
    { class: differs ? 'chip changed' : 'chip', 'data-score': s.name, 'data-differs': differs ? 'true' : null },
    `${s.name}: ${scoreText(s)}${delta}`,
  );
}

function resultCell(
  project: string,
  result: RunItemResult | null,
  baseline: RunItemResult | null,
  isBaseline: boolean,
) {
  if (!result) return h('span', { class: 'hint', 'data-testid': 'result-missing' }, 'not run');
  const outputDiffers = !isBaseline && baseline !== null && asText(baseline.output) !== asText(result.output);
  return h(
    'div',
    { class: 'result', 'data-testid': 'run-result' },
    h(
      'pre',
      {
        class: outputDiffers ? 'io compact changed' : 'io compact',
        'data-testid': 'result-output',
        'data-differs': outputDiffers ? 'true' : null,
        title: outputDiffers ? 'Differs from the baseline run' : null,
      },
      asText(result.output) || '–',
    ),
    result.scores.length
      ? h(
          'span',
          { class: 'chips', 'data-testid': 'result-scores' },
          result.scores.map((s) =>
            scoreChip(
              s,
              baseline?.scores.find((b) => b.name === s.name),
              isBaseline,
            ),
          ),
        )
      : null,
    h(
      'div',
      { class: 'result-facts hint' },
      h('span', { 'data-testid': 'result-latency' }, ms(result.latencyMs)),
      ' · ',
      h('span', { 'data-testid': 'result-cost' }, usd(result.cost)),
      ' · ',
      h(
        'a',
        { href: href(`/p/${seg(project)}/traces/${seg(result.traceId)}`), 'data-testid': 'result-trace' },
        'trace',
      ),
    ),
  );
}

/** The first row: each run's item count and averages. */
function summaryRow(runs: DatasetRun[]): HTMLElement {
  return h(
    'tr',
    { class: 'summary', 'data-testid': 'compare-summary' },
    h('th', { colspan: 2 }, 'Averages'),
    runs.map((r) =>
      h(
        'th',
        { 'data-run': r.name },
        h('div', null, `${num(r.itemCount)} items · ${ms(r.avgLatencyMs)} avg · ${usd(r.avgCost)} avg`),
        scoreChips(r.avgScores),
      ),
    ),
  );
}

export async function datasetComparePage(ctx: ViewContext): Promise<Node> {
  const name = ctx.params.name!;
  const c = await get<Comparison>(datasetApi(ctx.project, name, '/compare'), { runs: ctx.query.get('runs') });
  const baseId = c.runs[0]!.id;
  const grid = table(
    c.items,
    [
      { title: 'Input', cell: (i) => (i.deleted ? h('span', { class: 'hint' }, 'deleted item') : jsonCell(i.input)) },
      { title: 'Expected output', cell: (i) => jsonCell(i.expectedOutput) },
      ...c.runs.map((r) => ({
        title: r.id === baseId ? `${r.name} (baseline)` : r.name,
        cell: (i: ComparedItem) =>
          resultCell(ctx.project, i.results[r.id] ?? null, i.results[baseId] ?? null, r.id === baseId),
      })),
    ],
    { testid: 'compare', emptyText: 'The dataset has no items.', rowAttrs: (i) => ({ 'data-item': i.id }) },
  );
  grid.querySelector('thead')?.append(summaryRow(c.runs));
  const single = c.runs.length === 1;
  return h(
    'div',
    { class: 'page', 'data-testid': 'compare-page' },
    datasetCrumbs(ctx.project, name, single ? c.runs[0]!.name : 'Compare runs'),
    pageHeader(single ? `Run ${c.runs[0]!.name}` : `Compare ${c.runs.length} runs`),
    single
      ? null
      : h(
          'p',
          { class: 'hint' },
          `Baseline: ${c.runs[0]!.name}. Outputs and scores that differ from the baseline's are marked; a numeric score shows its difference.`,
        ),
    section(single ? 'Items' : 'Items × runs', h('div', { class: 'compare' }, grid)),
  );
}
