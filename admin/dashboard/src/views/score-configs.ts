// Score configs of a project: what a score of a given name may hold (a number within bounds, one of some categories,
// true or false, or text). Members create them and archive or restore them; an archived config is kept for the
// scores made with it but is no longer offered for new ones.
import { get, inProject, post, put } from '../api.ts';
import { h } from '../dom.ts';
import { href, seg } from '../router.ts';
import { configRange, type ScoreConfig } from '../score-input.ts';
import { actionButton, badge, field, pageHeader, section, submitHandler, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';

const DATA_TYPES = ['NUMERIC', 'CATEGORICAL', 'BOOLEAN', 'TEXT'] as const;

/** `good = 1` lines as categories; a line without a value takes its position (0, 1, 2, …). */
function categoriesOf(text: string): { label: string; value: number }[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line, i) => {
      const at = line.lastIndexOf('=');
      const value = at < 0 ? NaN : Number(line.slice(at + 1).trim());
      return Number.isFinite(value) && line.slice(at + 1).trim() !== ''
        ? { label: line.slice(0, at).trim(), value }
        : { label: line, value: i };
    });
}

function createForm(ctx: ViewContext): HTMLElement {
  const name = h('input', { type: 'text', name: 'name', required: true, maxlength: 255 });
  const dataType = h(
    'select',
    { name: 'dataType' },
    DATA_TYPES.map((t) => h('option', { value: t }, t)),
  );
  const minValue = h('input', { type: 'number', step: 'any', name: 'minValue' });
  const maxValue = h('input', { type: 'number', step: 'any', name: 'maxValue' });
  const categories = h('textarea', { name: 'categories', rows: 4, placeholder: 'good = 1\nbad = 0' });
  const description = h('input', { type: 'text', name: 'description' });
  const numericFields = h('div', { class: 'row' }, field('Minimum', minValue), field('Maximum', maxValue));
  const categoryField = field('Categories', categories, 'One per line: label = value (without a value: 0, 1, 2 …).');
  const showFields = () => {
    numericFields.classList.toggle('hidden', dataType.value !== 'NUMERIC');
    categoryField.classList.toggle('hidden', dataType.value !== 'CATEGORICAL');
  };
  dataType.addEventListener('change', showFields);
  showFields();
  const message = h('p', { class: 'inline-error', role: 'alert' });
  const number = (input: HTMLInputElement) => (input.value === '' ? undefined : Number(input.value));
  return h(
    'form',
    {
      class: 'form',
      'data-testid': 'score-config-form',
      onsubmit: submitHandler(message, null, async () => {
        const type = dataType.value;
        await post(inProject(ctx.project, '/score-configs'), {
          name: name.value.trim(),
          dataType: type,
          description: description.value.trim() || undefined,
          ...(type === 'NUMERIC' ? { minValue: number(minValue), maxValue: number(maxValue) } : {}),
          ...(type === 'CATEGORICAL' ? { categories: categoriesOf(categories.value) } : {}),
        });
        ctx.refresh();
      }),
    },
    h('div', { class: 'row' }, field('Name', name), field('Data type', dataType), field('Description', description)),
    numericFields,
    categoryField,
    message,
    h('div', null, h('button', { type: 'submit', class: 'primary' }, 'Create score config')),
  );
}

export async function scoreConfigsPage(ctx: ViewContext): Promise<Node> {
  const { data } = await get<{ data: ScoreConfig[] }>(inProject(ctx.project, '/score-configs'));
  const setArchived = (c: ScoreConfig, isArchived: boolean) =>
    put(inProject(ctx.project, `/score-configs/${encodeURIComponent(c.id)}/archived`), { isArchived }).then(() =>
      ctx.refresh(),
    );
  return h(
    'div',
    { class: 'page' },
    h('p', { class: 'crumbs' }, h('a', { href: href(`/p/${seg(ctx.project)}/scores`) }, 'Scores'), ' › Score configs'),
    pageHeader('Score configs'),
    section(
      'Configs',
      h(
        'p',
        { class: 'hint' },
        'A config fixes the shape of a score: annotation queues and the trace page offer the active ones as inputs.',
      ),
      table(
        data,
        [
          { title: 'Name', cell: (c) => h('strong', null, c.name) },
          { title: 'Data type', cell: (c) => c.dataType },
          { title: 'Range or categories', cell: (c) => configRange(c) },
          { title: 'Description', cell: (c) => c.description ?? '' },
          {
            title: 'Status',
            cell: (c) => (c.isArchived ? badge('archived') : badge('active', 'ok')),
          },
          {
            title: '',
            cell: (c) =>
              ctx.canChange
                ? actionButton(c.isArchived ? 'Restore' : 'Archive', () => setArchived(c, !c.isArchived), {
                    testid: 'archive-config',
                  })
                : '',
          },
        ],
        {
          testid: 'score-configs',
          emptyText: 'No score configs yet.',
          rowAttrs: (c) => ({ 'data-config': c.name }),
        },
      ),
    ),
    ctx.canChange ? section('New score config', createForm(ctx)) : null,
  );
}
