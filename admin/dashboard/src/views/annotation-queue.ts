// One annotation queue, worked through item by item: the item's trace or observation input and output (a session's
// turns), the queue's score configs as inputs, and the keys that drive it (annotation-keys.ts): choose values, Enter
// saves the scores as annotations and completes the item, S skips it; both move on to the next pending item.
import { get, inProject, post } from '../api.ts';
import { chatBubbles } from '../chat-turns.ts';
import { h, replace } from '../dom.ts';
import { asText, dateTime, num } from '../format.ts';
import { href, seg } from '../router.ts';
import { configRange, scoreField, type ScoreField } from '../score-input.ts';
import { empty, errorText, pageHeader, section } from '../ui.ts';
import type { ViewContext } from '../view.ts';
import { keyHints, reviewKeys } from './annotation-keys.ts';
import { queueItems } from './annotation-queue-items.ts';
import type { QueueRow } from './annotation-queues.ts';

interface IoView {
  kind: 'trace' | 'observation';
  traceId: string;
  name: string | null;
  time: string;
  input: unknown;
  output: unknown;
}

interface SessionView {
  kind: 'session';
  sessionId: string;
  time: string;
  turns: { traceId: string; name: string | null; input: unknown; output: unknown }[];
}

/** A score the queue already holds for the item: shown in its input, changed (not added) when saved again. */
interface HeldScore {
  id: string;
  configId: string | null;
  value: number | null;
  stringValue: string | null;
  comment: string | null;
}

interface NextItem {
  item: { id: string; objectType: string; objectId: string; status: string; createdAt: string } | null;
  object?: IoView | SessionView | null;
  scores?: HeldScore[];
}

const io = (title: string, value: unknown, testid: string) =>
  section(title, h('pre', { class: 'io tall', 'data-testid': testid }, asText(value) || '–'));

function objectView(project: string, next: NextItem): HTMLElement {
  const o = next.object;
  const item = next.item!;
  if (!o)
    return h(
      'div',
      { class: 'notice warn' },
      `The ${item.objectType.toLowerCase()} ${item.objectId} is not stored (yet): skip this item or come back later.`,
    );
  const traceLink = (id: string, text: string) =>
    h('a', { href: href(`/p/${seg(project)}/traces/${seg(id)}`), class: 'mono', 'data-testid': 'item-trace' }, text);
  if (o.kind === 'session')
    return section(
      `Session ${o.sessionId}`,
      o.turns.map((t) =>
        h(
          'div',
          { class: 'turn' },
          traceLink(t.traceId, t.name ?? t.traceId),
          chatBubbles(t.input, 'in'),
          chatBubbles(t.output, 'out'),
        ),
      ),
    );
  return h(
    'div',
    { class: 'item-object' },
    h(
      'p',
      { class: 'crumbs' },
      `${o.kind === 'trace' ? 'Trace' : 'Observation'} `,
      h('strong', null, o.name ?? item.objectId),
      ' · ',
      traceLink(o.traceId, o.traceId),
      ' · ',
      dateTime(o.time),
    ),
    io('Input', o.input, 'item-input'),
    io('Output', o.output, 'item-output'),
  );
}

export async function annotationQueuePage(ctx: ViewContext): Promise<Node> {
  const path = (rest = '') => inProject(ctx.project, `/annotation-queues/${encodeURIComponent(ctx.params.id!)}${rest}`);
  const queue = await get<QueueRow>(path());
  const configs = queue.scoreConfigs.filter((c) => !c.isArchived);
  const counts = h('span', { class: 'hint', 'data-testid': 'queue-counts' });
  const body = h('div', { class: 'review' });
  const status = h('p', { class: 'notice hidden', role: 'status', 'data-testid': 'review-status' });
  let current: NextItem = { item: null };
  let fields: ScoreField[] = [];
  let comment: HTMLTextAreaElement | null = null;
  let held = new Map<string, HeldScore>();
  let counted = { pending: queue.pending, completed: queue.completed };
  const items = queueItems(ctx.project, path('/items'), (id) => void open(id));

  const showCounts = () => {
    counts.textContent = `${num(counted.pending)} pending · ${num(counted.completed)} completed`;
  };
  const say = (text: string, kind: 'success' | 'error' | 'warn') => {
    status.className = `notice ${kind}`;
    status.textContent = text;
  };

  /** Runs `fn` once `el` is in the document: the first item is drawn before the shell attaches the page. */
  function whenShown(el: HTMLElement, fn: () => void): void {
    if (el.isConnected) return fn();
    const watch = new MutationObserver(() => {
      if (!el.isConnected) return;
      watch.disconnect();
      fn();
    });
    watch.observe(document.body, { childList: true, subtree: true });
    ctx.onCleanup(() => watch.disconnect());
  }

  async function load(after?: string): Promise<void> {
    show(await get<NextItem>(path('/next'), { after }), after);
  }

  async function open(id: string): Promise<void> {
    show(await get<NextItem>(path(`/items/${encodeURIComponent(id)}`)));
    if (ctx.canChange && current.item?.status === 'COMPLETED')
      say('A completed item: Enter saves the scores as changed.', 'warn');
    else status.className = 'notice hidden';
    window.scrollTo(0, 0);
  }

  function show(next: NextItem, after?: string): void {
    current = next;
    held = new Map((next.scores ?? []).flatMap((x) => (x.configId ? [[x.configId, x]] : [])));
    if (!current.item) {
      fields = [];
      comment = null;
      replace(
        body,
        empty(
          after && counted.pending > 0 ? 'No pending items after this one.' : 'No pending items: the queue is done.',
        ),
        after && counted.pending > 0
          ? h(
              'button',
              { type: 'button', class: 'secondary', onclick: () => void load() },
              'Start over from the first pending item',
            )
          : null,
      );
      return;
    }
    fields = configs.map(scoreField);
    configs.forEach((c, i) => {
      const given = held.get(c.id);
      if (given) fields[i]!.set(given);
    });
    comment = ctx.canChange
      ? h('textarea', { rows: 2, class: 'wide', 'aria-label': 'Comment', placeholder: 'Comment (C)' })
      : null;
    if (comment) comment.value = next.scores?.find((x) => x.comment)?.comment ?? '';
    const form = ctx.canChange
      ? section(
          'Scores',
          configs.length === 0
            ? h('p', { class: 'hint' }, 'This queue has no score configs: Enter completes the item.')
            : null,
          configs.map((c, i) =>
            h(
              'div',
              { class: 'score-row', 'data-config': c.name },
              h('div', null, h('strong', null, c.name), ' ', h('span', { class: 'hint' }, configRange(c))),
              c.description ? h('p', { class: 'hint' }, c.description) : null,
              fields[i]!.element,
            ),
          ),
          comment,
          h(
            'div',
            { class: 'actions' },
            h(
              'button',
              { type: 'button', class: 'primary', 'data-testid': 'complete-item', onclick: () => void complete() },
              'Save and complete ↵',
            ),
            h('button', { type: 'button', class: 'secondary', onclick: () => void skip() }, 'Skip (S)'),
          ),
        )
      : section(
          'Scores',
          h('p', { class: 'hint' }, 'Viewers read the queue; members annotate it.'),
          h('button', { type: 'button', class: 'secondary', onclick: () => void skip() }, 'Next item (S)'),
        );
    replace(
      body,
      h(
        'div',
        { class: 'review-layout', 'data-testid': 'queue-item', 'data-item': current.item.id },
        h('div', null, objectView(ctx.project, current)),
        h('div', { class: 'review-side' }, form, keyHints(ctx.canChange)),
      ),
    );
    const first = fields[0];
    if (first) whenShown(first.element, () => first.focus());
  }

  async function complete(): Promise<void> {
    const item = current.item;
    if (!item || !ctx.canChange) return;
    const note = comment?.value.trim();
    const scores = configs.flatMap((c, i) => {
      const value = fields[i]!.value();
      if (value === undefined) return [];
      return [{ id: held.get(c.id)?.id, configId: c.id, name: c.name, value, ...(note ? { comment: note } : {}) }];
    });
    if (configs.length > 0 && scores.length === 0) {
      say('Choose at least one value first (or press S to skip this item).', 'warn');
      return;
    }
    try {
      await post(path(`/items/${encodeURIComponent(item.id)}/complete`), { scores });
    } catch (err) {
      say(errorText(err), 'error');
      return;
    }
    if (item.status === 'PENDING') counted = { pending: counted.pending - 1, completed: counted.completed + 1 };
    showCounts();
    say(`Saved ${scores.length} score${scores.length === 1 ? '' : 's'}; the item is completed.`, 'success');
    await Promise.all([load(item.id), items.reload()]);
  }

  async function skip(): Promise<void> {
    if (!current.item) return;
    say('Skipped: the item stays pending.', 'warn');
    await load(current.item.id);
  }

  ctx.onCleanup(
    reviewKeys({
      fields: () => fields,
      comment: () => comment,
      complete: () => void complete(),
      skip: () => void skip(),
    }),
  );
  showCounts();
  await Promise.all([load(), items.reload()]);
  return h(
    'div',
    { class: 'page', 'data-testid': 'annotation-queue' },
    h(
      'p',
      { class: 'crumbs' },
      h('a', { href: href(`/p/${seg(ctx.project)}/annotation-queues`) }, 'Annotation queues'),
      ` › ${queue.name}`,
    ),
    pageHeader(queue.name, counts),
    queue.description ? h('p', { class: 'hint' }, queue.description) : null,
    status,
    body,
    items.element,
  );
}
