// "Add score" on a trace page (members and above): an annotation of the trace or of one of its observations (the one
// selected in the tree is picked as it is selected), with one of the project's active score configs or a free name
// and value. Saved as an ANNOTATION score by the signed-in user; the page then shows it among the trace's scores.
// Beside it, "Add to queue" puts the trace into an annotation queue for a reviewer.
import { get, inProject, post } from '../api.ts';
import { h, replace } from '../dom.ts';
import { scoreField, type ScoreConfig, type ScoreField } from '../score-input.ts';
import { actionButton, field, submitHandler } from '../ui.ts';
import type { ViewContext } from '../view.ts';
import { queueHref, type QueueRow } from './annotation-queues.ts';

interface AnnotatedTrace {
  id: string;
  name: string | null;
  spans: { id: string; name: string | null; type: string }[];
}

const FREE = '';

/** A free score: a name and a value, a number when it reads as one. */
/** What the form reads of a value control: a config's field or the free one. */
type ValueControl = Omit<ScoreField, 'set'> & { name?: HTMLInputElement };

function freeField(): ValueControl & { name: HTMLInputElement } {
  const name = h('input', {
    type: 'text',
    'aria-label': 'Score name',
    placeholder: 'name',
    'data-testid': 'free-name',
  });
  const value = h('input', { type: 'text', 'aria-label': 'Value', placeholder: 'value (number or category)' });
  return {
    name,
    element: h('div', { class: 'row' }, field('Name', name), field('Value', value)),
    focus: () => name.focus(),
    value: () => {
      const v = value.value.trim();
      if (v === '') return undefined;
      return Number.isFinite(Number(v)) ? Number(v) : v;
    },
  };
}

function annotateForm(ctx: ViewContext, trace: AnnotatedTrace, configs: ScoreConfig[]): HTMLElement {
  const target = h(
    'select',
    { 'aria-label': 'Score what', 'data-testid': 'annotate-target' },
    h('option', { value: '' }, `Trace ${trace.name ?? trace.id}`),
    trace.spans.map((s) => h('option', { value: s.id }, `${s.type} ${s.name ?? s.id}`)),
  );
  const picker = h(
    'select',
    { 'aria-label': 'Score config', 'data-testid': 'annotate-config' },
    configs.map((c) => h('option', { value: c.id }, c.name)),
    h('option', { value: FREE }, 'Other (free name and value)'),
  );
  const holder = h('div', { 'data-testid': 'annotate-value' });
  const comment = h('input', { type: 'text', 'aria-label': 'Comment', placeholder: 'comment (optional)' });
  let value: ValueControl = freeField();
  const showValue = () => {
    const config = configs.find((c) => c.id === picker.value);
    value = config ? scoreField(config) : freeField();
    replace(holder, value.element);
  };
  picker.addEventListener('change', showValue);
  showValue();
  // The observation selected in the tree becomes the target (the tree's rows are this page's [data-span] rows).
  const follow = (e: Event) => {
    const row = (e.target as Element | null)?.closest?.('[data-span]');
    const id = row?.getAttribute('data-span');
    if (id && trace.spans.some((s) => s.id === id)) target.value = id;
  };
  document.addEventListener('click', follow);
  document.addEventListener('keyup', follow);
  ctx.onCleanup(() => {
    document.removeEventListener('click', follow);
    document.removeEventListener('keyup', follow);
  });
  const message = h('p', { class: 'inline-error', role: 'alert' });
  return h(
    'form',
    {
      class: 'form annotate',
      'data-testid': 'annotate-form',
      onsubmit: submitHandler(message, null, async () => {
        const config = configs.find((c) => c.id === picker.value);
        const v = value.value();
        if (v === undefined) throw new Error('Give the score a value');
        await post(inProject(ctx.project, '/scores'), {
          traceId: trace.id,
          observationId: target.value || undefined,
          configId: config?.id,
          name: config?.name ?? value.name?.value.trim(),
          value: v,
          comment: comment.value.trim() || undefined,
        });
        ctx.refresh();
      }),
    },
    h('div', { class: 'row' }, field('Score', target), field('Config', picker)),
    holder,
    comment,
    message,
    h('div', null, h('button', { type: 'submit', class: 'primary', 'data-testid': 'annotate-save' }, 'Save score')),
  );
}

/** A picker of the project's queues and a button that adds the trace to the one picked. */
async function queuePicker(ctx: ViewContext, traceId: string): Promise<HTMLElement> {
  const { data } = await get<{ data: QueueRow[] }>(inProject(ctx.project, '/annotation-queues'));
  if (data.length === 0) return h('span', { class: 'hint' }, 'No annotation queues yet.');
  const picker = h(
    'select',
    { 'aria-label': 'Annotation queue', 'data-testid': 'queue-picker' },
    data.map((q) => h('option', { value: q.id }, q.name)),
  );
  const done = h('span', { 'data-testid': 'queued' });
  const add = async () => {
    await post(inProject(ctx.project, `/annotation-queues/${encodeURIComponent(picker.value)}/items`), {
      objectId: traceId,
      objectType: 'TRACE',
    });
    const queue = data.find((q) => q.id === picker.value)!;
    replace(done, 'Added to ', h('a', { href: queueHref(ctx.project, queue.id) }, queue.name));
  };
  return h('span', { class: 'row' }, picker, actionButton('Add', add, { testid: 'queue-add' }), done);
}

/** "Add score", opening the form with the project's active configs, and "Add to queue"; nothing for viewers. */
export function annotateTrace(ctx: ViewContext, trace: AnnotatedTrace): HTMLElement | null {
  if (!ctx.canChange) return null;
  const queueBox = h('span', null);
  const toQueue = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      'data-testid': 'add-to-queue',
      onclick: async () => replace(queueBox, await queuePicker(ctx, trace.id)),
    },
    'Add to queue',
  );
  queueBox.append(toQueue);
  const box = h('div', { class: 'annotate-box' });
  const open = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      'data-testid': 'add-score',
      onclick: async () => {
        const { data } = await get<{ data: ScoreConfig[] }>(inProject(ctx.project, '/score-configs'));
        open.remove();
        box.append(
          annotateForm(
            ctx,
            trace,
            data.filter((c) => !c.isArchived),
          ),
        );
      },
    },
    '+ Add score',
  );
  box.append(h('div', { class: 'row' }, open, queueBox));
  return box;
}
