// "Add to dataset" on a trace page (members and above): a dialog that puts the trace's input, and its output as the
// expected output, into a dataset as a new item linked to the trace, both editable as JSON first; the dataset is
// picked from the project's or named anew (then created).
import { get, inProject, post } from '../api.ts';
import { h, replace } from '../dom.ts';
import { href } from '../router.ts';
import type { Page } from '../types.ts';
import { errorText, field, submitHandler } from '../ui.ts';
import type { ViewContext } from '../view.ts';
import { datasetApi, datasetPath, type Dataset } from './datasets.ts';

interface TraceIO {
  id: string;
  input: unknown;
  output: unknown;
}

const NEW = '';
/** Datasets offered in the picker: the project's newest. */
const PICKABLE = 200;

const jsonText = (v: unknown) => (v === undefined ? 'null' : JSON.stringify(v, null, 2));

function parseJson(label: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${label} is not valid JSON`);
  }
}

function dialog(ctx: ViewContext, trace: TraceIO, datasets: Dataset[], done: (name: string) => void) {
  const picker = h(
    'select',
    { 'data-testid': 'dataset-picker', onchange: () => newName.classList.toggle('hidden', picker.value !== NEW) },
    datasets.map((d) => h('option', { value: d.name }, d.name)),
    h('option', { value: NEW }, 'New dataset…'),
  );
  const newName = h('input', { type: 'text', placeholder: 'New dataset name', 'data-testid': 'new-dataset-name' });
  newName.classList.toggle('hidden', datasets.length > 0);
  const input = h('textarea', { rows: 6, 'data-testid': 'item-input' }, jsonText(trace.input));
  const expected = h('textarea', { rows: 6, 'data-testid': 'item-expected' }, jsonText(trace.output));
  const message = h('p', { class: 'inline-error', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'add-item' }, 'Add item');
  const box: HTMLDialogElement = h(
    'dialog',
    { class: 'modal', 'data-testid': 'add-to-dataset-dialog' },
    h(
      'form',
      {
        class: 'form',
        onsubmit: submitHandler(message, submit, async () => {
          const name = picker.value === NEW ? newName.value.trim() : picker.value;
          if (!name) throw new Error('Name the new dataset');
          const item = {
            input: parseJson('Input', input.value),
            expectedOutput: parseJson('Expected output', expected.value),
            sourceTraceId: trace.id,
          };
          if (picker.value === NEW) await post(inProject(ctx.project, '/datasets'), { name });
          await post(datasetApi(ctx.project, name, '/items'), item);
          box.close();
          done(name);
        }),
      },
      h('h2', null, 'Add to dataset'),
      h('div', { class: 'row' }, field('Dataset', picker), newName),
      field('Input', input),
      field('Expected output', expected, "The trace's output; edit it to what the answer should be."),
      h(
        'div',
        { class: 'row' },
        submit,
        h('button', { type: 'button', class: 'secondary', onclick: () => box.close() }, 'Cancel'),
        message,
      ),
    ),
  );
  return box;
}

/** The button and its dialog; nothing for viewers. */
export function addToDataset(ctx: ViewContext, trace: TraceIO): HTMLElement | null {
  if (!ctx.canChange) return null;
  const status = h('span', { 'data-testid': 'added-to-dataset' });
  const holder = h('span', { class: 'action' });
  const open = async () => {
    const datasets = await get<Page<Dataset>>(inProject(ctx.project, '/datasets'), { limit: PICKABLE });
    const box = dialog(ctx, trace, datasets.data, (name) =>
      replace(status, 'Added to ', h('a', { href: href(datasetPath(ctx.project, name)) }, name)),
    );
    box.addEventListener('close', () => box.remove());
    holder.append(box);
    box.showModal();
  };
  const button = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      'data-testid': 'add-to-dataset',
      onclick: () => open().catch((err) => replace(status, h('span', { class: 'inline-error' }, errorText(err)))),
    },
    'Add to dataset',
  );
  holder.append(button, status);
  return holder;
}
