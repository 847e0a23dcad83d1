// A version's labels, and (members and up) changing them the way Langfuse does: a label sits on one version of a name
// at a time, so adding it here takes it off the version that had it. Each change saves the version's whole label set.
import { inProject, put } from '../api.ts';
import { h } from '../dom.ts';
import { actionButton } from '../ui.ts';
import type { ViewContext } from '../view.ts';
import { LATEST, labelBadge, type PromptVersion } from './prompt-model.ts';

const PRODUCTION = 'production';
/** Offered in the label field even before any version has them. */
const USUAL_LABELS = [PRODUCTION, 'staging'];

function saveLabels(ctx: ViewContext, v: PromptVersion, labels: string[]): Promise<void> {
  const path = `/prompts/${encodeURIComponent(v.name)}/versions/${v.version}/labels`;
  return put(inProject(ctx.project, path), { labels: labels.filter((l) => l !== LATEST) }).then(() => ctx.refresh());
}

/** The version's labels as chips; members get a remove button on each (but `latest`). */
function labelChips(ctx: ViewContext, v: PromptVersion): HTMLElement {
  if (v.labels.length === 0) return h('span', { class: 'hint' }, 'No labels');
  return h(
    'span',
    { class: 'label-chips', 'data-testid': 'version-labels' },
    v.labels.map((l) =>
      h(
        'span',
        { class: 'label-chip' },
        labelBadge(l),
        ctx.canChange && l !== LATEST
          ? h(
              'button',
              {
                type: 'button',
                class: 'chip-remove',
                title: `Remove ${l}`,
                'aria-label': `Remove label ${l}`,
                'data-testid': `remove-label-${l}`,
                onclick: () =>
                  void saveLabels(
                    ctx,
                    v,
                    v.labels.filter((x) => x !== l),
                  ),
              },
              '×',
            )
          : null,
      ),
    ),
  );
}

/** Where each label sits now, to say that adding it here moves it. */
const holders = (versions: PromptVersion[]) =>
  new Map(versions.flatMap((p) => p.labels.filter((l) => l !== LATEST).map((l) => [l, p.version] as const)));

function addLabelForm(ctx: ViewContext, v: PromptVersion, versions: PromptVersion[]): HTMLElement {
  const where = holders(versions);
  const input = h('input', {
    type: 'text',
    list: 'known-labels',
    'aria-label': 'New label',
    placeholder: 'staging, production, …',
    'data-testid': 'label-input',
  });
  const note = h('small', { class: 'hint', 'data-testid': 'label-move-note' });
  input.addEventListener('input', () => {
    const on = where.get(input.value.trim());
    note.textContent = on !== undefined && on !== v.version ? `On v${on} now: adding it here moves it.` : '';
  });
  const add = actionButton(
    'Add label',
    async () => {
      const label = input.value.trim();
      if (label) await saveLabels(ctx, v, [...v.labels, label]);
    },
    { class: 'secondary', testid: 'add-label' },
  );
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') add.querySelector('button')!.click();
  });
  const known = [...new Set([...USUAL_LABELS, ...where.keys()])].filter((l) => !v.labels.includes(l));
  return h(
    'div',
    { class: 'label-form' },
    h('div', { class: 'row' }, input, add),
    note,
    h(
      'datalist',
      { id: 'known-labels' },
      known.map((l) => h('option', { value: l })),
    ),
  );
}

export function labelEditor(ctx: ViewContext, v: PromptVersion, versions: PromptVersion[]): HTMLElement {
  const productionOn = holders(versions).get(PRODUCTION);
  return h(
    'div',
    { class: 'labels-panel' },
    h('div', { class: 'row' }, h('strong', null, 'Labels'), labelChips(ctx, v)),
    ctx.canChange
      ? [
          addLabelForm(ctx, v, versions),
          v.labels.includes(PRODUCTION)
            ? null
            : actionButton('Promote to production', () => saveLabels(ctx, v, [...v.labels, PRODUCTION]), {
                class: 'primary',
                testid: 'promote-production',
                confirmText:
                  productionOn === undefined
                    ? undefined
                    : `Move production from v${productionOn} to v${v.version}? Clients fetching the production label get v${v.version}.`,
              }),
        ]
      : null,
  );
}
