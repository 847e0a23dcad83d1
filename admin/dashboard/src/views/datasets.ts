// Datasets of a project: the list with each dataset's item and run counts (and, for members, a form to create one),
// and one dataset: its runs with their averages (two or more picked for a comparison) and its items, each with its
// input, expected output, metadata, status and the trace it was made from (members archive and restore items).
import { get, inProject, patch, post } from '../api.ts';
import { h } from '../dom.ts';
import { asText, dateTime, ms, num, truncate, usd } from '../format.ts';
import { href, navigate, seg } from '../router.ts';
import type { Page } from '../types.ts';
import { actionButton, badge, field, pageHeader, pager, section, stat, submitHandler, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';
import type { StoredDatasetItem } from '../../../../src/platform/store/repos/dataset-items.ts';
import type { StoredDatasetRun } from '../../../../src/platform/store/repos/dataset-runs.ts';
import type { DatasetCounts } from '../../../../src/platform/store/repos/dataset-summaries.ts';
import type { StoredDataset } from '../../../../src/platform/store/repos/datasets.ts';
import type { RunSummary } from '../../../dashboard-api/run-summary.ts';
import { roundScore, runBars } from './dataset-run-bars.ts';

export type Dataset = DatasetCounts & Pick<StoredDataset, 'id' | 'name' | 'description' | 'metadata' | 'createdAt'>;

export type DatasetItem = Pick<
  StoredDatasetItem,
  'id' | 'status' | 'input' | 'expectedOutput' | 'metadata' | 'sourceTraceId' | 'createdAt'
>;

export type DatasetRun = RunSummary & Pick<StoredDatasetRun, 'id' | 'name' | 'description' | 'createdAt'>;

interface DatasetDetail extends Dataset {
  runs: DatasetRun[];
}

const LIMIT = 50;

export const datasetsPath = (project: string) => `/p/${seg(project)}/datasets`;
export const datasetPath = (project: string, name: string) => `${datasetsPath(project)}/${seg(name)}`;
/** The dashboard API path of a dataset (or of what is under it). */
export const datasetApi = (project: string, name: string, rest = '') =>
  inProject(project, `/datasets/${encodeURIComponent(name)}${rest}`);

/** A JSON value in a cell: on one line, clipped, the whole of it (indented) on hover. */
export function jsonCell(value: unknown, testid?: string): HTMLElement {
  const line = value === null || value === undefined ? '–' : typeof value === 'string' ? value : JSON.stringify(value);
  return h('span', { class: 'mono clip json-cell', title: asText(value), 'data-testid': testid }, truncate(line, 120));
}

/** Score name → average, as chips; `–` without scores. */
export function scoreChips(scores: Record<string, number>): HTMLElement {
  const names = Object.keys(scores);
  if (names.length === 0) return h('span', { class: 'hint' }, '–');
  return h(
    'span',
    { class: 'chips' },
    names.map((n) => h('span', { class: 'chip', 'data-score': n }, `${n}: ${roundScore(scores[n]!)}`)),
  );
}

function newDatasetForm(ctx: ViewContext): HTMLElement {
  const name = h('input', { type: 'text', required: true, 'data-testid': 'new-dataset-name' });
  const description = h('input', { type: 'text', 'data-testid': 'new-dataset-description' });
  const message = h('p', { class: 'inline-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create dataset');
  return h(
    'details',
    { class: 'edit' },
    h('summary', null, 'New dataset'),
    h(
      'form',
      {
        class: 'form',
        onsubmit: submitHandler(message, submit, async () => {
          await post(inProject(ctx.project, '/datasets'), {
            name: name.value.trim(),
            description: description.value.trim() || undefined,
          });
          navigate(datasetPath(ctx.project, name.value.trim()));
        }),
      },
      h('div', { class: 'row' }, field('Name', name, 'A “/” puts it in a folder.'), field('Description', description)),
      h('div', { class: 'row' }, submit, message),
    ),
  );
}

export async function datasetsPage(ctx: ViewContext): Promise<Node> {
  const offset = Math.max(0, Number(ctx.query.get('offset') ?? 0) || 0);
  const page = await get<Page<Dataset>>(inProject(ctx.project, '/datasets'), { limit: LIMIT, offset });
  return h(
    'div',
    { class: 'page' },
    pageHeader('Datasets'),
    ctx.canChange ? newDatasetForm(ctx) : null,
    section(
      'Datasets, newest first',
      table(
        page.data,
        [
          {
            title: 'Name',
            cell: (d) =>
              h('a', { href: href(datasetPath(ctx.project, d.name)), 'data-testid': 'dataset-link' }, d.name),
          },
          { title: 'Description', cell: (d) => d.description ?? '' },
          { title: 'Items', cell: (d) => num(d.itemCount), class: 'num' },
          { title: 'Runs', cell: (d) => num(d.runCount), class: 'num' },
          { title: 'Last run', cell: (d) => h('span', { class: 'mono nowrap' }, dateTime(d.lastRunAt)) },
          { title: 'Created', cell: (d) => h('span', { class: 'mono nowrap' }, dateTime(d.createdAt)) },
        ],
        {
          testid: 'datasets',
          emptyText: 'No datasets yet: create one here, through the public API or with “Add to dataset” on a trace.',
        },
      ),
      pager(offset, LIMIT, page.data.length, page.pagination, (o) => ctx.setQuery({ offset: String(o) })),
    ),
  );
}

/**
 * The runs, each with a box to pick it for the comparison, and a button that opens it for the runs picked; the first
 * picked is the comparison's baseline.
 */
function runsTable(ctx: ViewContext, dataset: DatasetDetail): HTMLElement {
  const picked = new Set<string>();
  const compare = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      disabled: true,
      'data-testid': 'compare-runs',
      onclick: () =>
        navigate(`${datasetPath(ctx.project, dataset.name)}/compare`, {
          runs: [...picked].join(','),
        }),
    },
    'Compare selected runs',
  );
  const pick = (id: string, on: boolean) => {
    if (on) picked.add(id);
    else picked.delete(id);
    compare.disabled = picked.size < 2;
  };
  const scoreNames = [...new Set(dataset.runs.flatMap((r) => Object.keys(r.avgScores)))];
  return h(
    'div',
    null,
    table(
      dataset.runs,
      [
        {
          title: '',
          cell: (r) =>
            h('input', {
              type: 'checkbox',
              'aria-label': `Compare ${r.name}`,
              onchange: (e: Event) => pick(r.id, (e.target as HTMLInputElement).checked),
            }),
        },
        {
          title: 'Run',
          cell: (r) =>
            h(
              'a',
              { href: href(`${datasetPath(ctx.project, dataset.name)}/compare`, { runs: r.id }), title: r.description },
              r.name,
            ),
        },
        { title: 'Description', cell: (r) => r.description ?? '' },
        { title: 'Created', cell: (r) => h('span', { class: 'mono nowrap' }, dateTime(r.createdAt)) },
        { title: 'Items', cell: (r) => num(r.itemCount), class: 'num' },
        ...scoreNames.map((n) => ({
          title: `${n} (avg)`,
          cell: (r: DatasetRun) => (n in r.avgScores ? roundScore(r.avgScores[n]!) : '–'),
          class: 'num',
        })),
        { title: 'Avg latency', cell: (r) => ms(r.avgLatencyMs), class: 'num' },
        { title: 'Avg cost', cell: (r) => usd(r.avgCost), class: 'num' },
      ],
      {
        testid: 'dataset-runs',
        emptyText: 'No runs yet: an experiment links each item it runs to its trace (dataset run items).',
        rowAttrs: (r) => ({ 'data-run': r.name }),
      },
    ),
    dataset.runs.length >= 2
      ? h('div', { class: 'row' }, compare, h('span', { class: 'hint' }, 'Pick two runs or more.'))
      : null,
  );
}

/** Archives an active item (experiments and the public API then leave it out), or restores an archived one. */
function statusToggle(ctx: ViewContext, datasetName: string, item: DatasetItem): HTMLElement {
  const archive = item.status === 'ACTIVE';
  return actionButton(
    archive ? 'Archive' : 'Restore',
    async () => {
      await patch(datasetApi(ctx.project, datasetName, `/items/${encodeURIComponent(item.id)}`), {
        status: archive ? 'ARCHIVED' : 'ACTIVE',
      });
      ctx.refresh();
    },
    { class: 'link', testid: 'item-status-toggle' },
  );
}

function itemsTable(ctx: ViewContext, datasetName: string, items: DatasetItem[]): HTMLElement {
  return table(
    items,
    [
      { title: 'Item', cell: (i) => h('span', { class: 'mono nowrap', title: i.id }, truncate(i.id, 10)) },
      {
        title: 'Status',
        cell: (i) =>
          h(
            'span',
            { class: 'nowrap item-status' },
            badge(i.status.toLowerCase(), i.status === 'ACTIVE' ? 'ok' : 'muted'),
            ctx.canChange ? statusToggle(ctx, datasetName, i) : null,
          ),
      },
      { title: 'Input', cell: (i) => jsonCell(i.input, 'item-input') },
      { title: 'Expected output', cell: (i) => jsonCell(i.expectedOutput, 'item-expected') },
      { title: 'Metadata', cell: (i) => (i.metadata == null ? '' : jsonCell(i.metadata)) },
      {
        title: 'Source trace',
        cell: (i) =>
          i.sourceTraceId
            ? h(
                'a',
                {
                  href: href(`/p/${seg(ctx.project)}/traces/${seg(i.sourceTraceId)}`),
                  class: 'mono nowrap',
                  title: i.sourceTraceId,
                  'data-testid': 'item-source-trace',
                },
                truncate(i.sourceTraceId, 12),
              )
            : '',
      },
      { title: 'Created', cell: (i) => h('span', { class: 'mono nowrap' }, dateTime(i.createdAt)) },
    ],
    { testid: 'dataset-items', emptyText: 'No items yet.', rowAttrs: (i) => ({ 'data-item': i.id }) },
  );
}

export function datasetCrumbs(project: string, name: string, ...rest: (Node | string)[]): HTMLElement {
  return h(
    'p',
    { class: 'crumbs' },
    h('a', { href: href(datasetsPath(project)) }, 'Datasets'),
    ' › ',
    rest.length ? h('a', { href: href(datasetPath(project, name)) }, name) : name,
    rest.flatMap((r) => [' › ', r]),
  );
}

export async function datasetPage(ctx: ViewContext): Promise<Node> {
  const name = ctx.params.name!;
  const offset = Math.max(0, Number(ctx.query.get('offset') ?? 0) || 0);
  const [dataset, items] = await Promise.all([
    get<DatasetDetail>(datasetApi(ctx.project, name)),
    get<Page<DatasetItem>>(datasetApi(ctx.project, name, '/items'), { limit: LIMIT, offset }),
  ]);
  return h(
    'div',
    { class: 'page', 'data-testid': 'dataset-page' },
    datasetCrumbs(ctx.project, name),
    pageHeader(name),
    dataset.description ? h('p', { class: 'hint' }, dataset.description) : null,
    h(
      'div',
      { class: 'stats' },
      stat('Items', num(dataset.itemCount), 'dataset-item-count'),
      stat('Runs', num(dataset.runCount), 'dataset-run-count'),
      stat('Last run', dateTime(dataset.lastRunAt), 'dataset-last-run', true),
      stat('Created', dateTime(dataset.createdAt), 'dataset-created', true),
    ),
    section('Runs', runBars(dataset.runs), runsTable(ctx, dataset)),
    section(
      'Items',
      itemsTable(ctx, name, items.data),
      pager(offset, LIMIT, items.data.length, items.pagination, (o) => ctx.setQuery({ offset: String(o) })),
    ),
  );
}
