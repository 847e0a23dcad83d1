// Prompts: names grouped into folders; a prompt's versions with their labels, text or chat messages, a diff between
// two versions, and (members and up) setting a version's labels, which moves them off the version that had them.
import { get, inProject, put } from '../api.ts';
import { h } from '../dom.ts';
import { asText, dateTime } from '../format.ts';
import { lineDiff } from '../line-diff.ts';
import { href, seg } from '../router.ts';
import type { Page } from '../types.ts';
import { actionButton, badge, empty, field, pageHeader, section, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';

interface PromptName {
  name: string;
  folder: string | null;
  type: 'text' | 'chat';
  versions: number[];
  labels: string[];
  tags?: string[];
  lastUpdatedAt: string;
}

type ChatMessage = { role?: string; content?: unknown; type?: string; name?: string };

interface PromptVersion {
  id: string;
  name: string;
  version: number;
  type: 'text' | 'chat';
  prompt: string | ChatMessage[];
  config: unknown;
  labels: string[];
  tags: string[];
  commitMessage: string | null;
  createdAt: string;
  createdBy?: string | null;
}

const promptHref = (ctx: ViewContext, name: string, query: Record<string, string | undefined> = {}) =>
  href(`/p/${seg(ctx.project)}/prompts/${seg(name)}`, query);

export async function promptsPage(ctx: ViewContext): Promise<Node> {
  const prompts = await get<Page<PromptName>>(inProject(ctx.project, '/prompts'));
  const folders = new Map<string, PromptName[]>();
  for (const p of [...prompts.data].sort((a, b) => a.name.localeCompare(b.name))) {
    const folder = p.folder ?? '';
    folders.set(folder, [...(folders.get(folder) ?? []), p]);
  }
  return h(
    'div',
    { class: 'page' },
    pageHeader('Prompts'),
    prompts.data.length === 0
      ? section('Prompts', empty('No prompts yet. Create them with the public API or the Langfuse SDKs.'))
      : [...folders.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([folder, list]) =>
            section(
              folder === '' ? 'Top level' : `📁 ${folder}/`,
              table(
                list,
                [
                  {
                    title: 'Name',
                    cell: (p) =>
                      h('a', { href: promptHref(ctx, p.name) }, folder ? p.name.slice(folder.length + 1) : p.name),
                  },
                  { title: 'Type', cell: (p) => p.type },
                  { title: 'Versions', cell: (p) => String(p.versions.length), class: 'num' },
                  {
                    title: 'Labels',
                    cell: (p) =>
                      h(
                        'span',
                        { class: 'actions' },
                        p.labels.map((l) => badge(l, l === 'production' ? 'ok' : 'muted')),
                      ),
                  },
                  { title: 'Updated', cell: (p) => dateTime(p.lastUpdatedAt) },
                ],
                { testid: `prompts-${folder || 'root'}` },
              ),
            ),
          ),
  );
}

/** What a diff compares: the text, or each chat message as `role: content`. */
function promptText(v: PromptVersion): string {
  if (typeof v.prompt === 'string') return v.prompt;
  return v.prompt
    .map((m) => (m.type === 'placeholder' ? `[placeholder ${m.name ?? ''}]` : `${m.role ?? '?'}: ${asText(m.content)}`))
    .join('\n');
}

function content(v: PromptVersion): HTMLElement {
  if (typeof v.prompt === 'string') return h('pre', { class: 'io', 'data-testid': 'prompt-text' }, v.prompt);
  return h(
    'div',
    { 'data-testid': 'prompt-messages' },
    v.prompt.map((m) =>
      h(
        'div',
        { class: 'msg' },
        h('div', { class: 'msg-role' }, m.type === 'placeholder' ? `placeholder ${m.name ?? ''}` : (m.role ?? '?')),
        m.type === 'placeholder' ? null : h('pre', { class: 'io' }, asText(m.content)),
      ),
    ),
  );
}

function labelEditor(ctx: ViewContext, v: PromptVersion): HTMLElement {
  // `latest` follows the newest version on its own.
  const editable = v.labels.filter((l) => l !== 'latest');
  const input = h('input', {
    type: 'text',
    value: editable.join(', '),
    'aria-label': 'Labels',
    'data-testid': 'labels-input',
    placeholder: 'production, staging',
  });
  return h(
    'div',
    { class: 'row' },
    field('Labels of this version (comma-separated)', input),
    actionButton(
      'Save labels',
      async () => {
        const labels = [
          ...new Set(
            input.value
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          ),
        ];
        await put(inProject(ctx.project, `/prompts/${encodeURIComponent(v.name)}/versions/${v.version}/labels`), {
          labels,
        });
        ctx.refresh();
      },
      { class: 'primary', testid: 'save-labels' },
    ),
  );
}

export async function promptPage(ctx: ViewContext): Promise<Node> {
  const name = ctx.params.name!;
  const { versions } = await get<{ name: string; versions: PromptVersion[] }>(
    inProject(ctx.project, `/prompts/${encodeURIComponent(name)}`),
  );
  const sorted = [...versions].sort((a, b) => b.version - a.version);
  const selected = sorted.find((v) => String(v.version) === ctx.query.get('v')) ?? sorted[0]!;
  const against = sorted.find((v) => String(v.version) === ctx.query.get('diff'));
  const compare = h(
    'select',
    {
      'aria-label': 'Compare with',
      'data-testid': 'diff-select',
      onchange: (e: Event) => ctx.setQuery({ diff: (e.target as HTMLSelectElement).value || undefined }),
    },
    h('option', { value: '' }, 'No comparison'),
    sorted
      .filter((v) => v.version !== selected.version)
      .map((v) =>
        h('option', { value: String(v.version), selected: v.version === against?.version }, `version ${v.version}`),
      ),
  );
  const diff = against
    ? h(
        'div',
        { class: 'diff', 'data-testid': 'prompt-diff' },
        lineDiff(promptText(against), promptText(selected)).map((d) =>
          h('div', { class: d.kind }, `${d.kind === 'add' ? '+ ' : d.kind === 'del' ? '- ' : '  '}${d.text}`),
        ),
      )
    : null;
  return h(
    'div',
    { class: 'page' },
    h(
      'p',
      { class: 'crumbs' },
      h('a', { href: href(`/p/${seg(ctx.project)}/prompts`) }, 'Prompts'),
      name.includes('/') ? ` › ${name.slice(0, name.lastIndexOf('/'))}` : '',
    ),
    pageHeader(name, badge(selected.type)),
    h(
      'div',
      { class: 'two-col' },
      section(
        'Versions',
        h(
          'ul',
          { class: 'list', 'data-testid': 'versions' },
          sorted.map((v) =>
            h(
              'li',
              null,
              h(
                'a',
                {
                  href: promptHref(ctx, name, { v: String(v.version), diff: ctx.query.get('diff') ?? undefined }),
                  class: v.version === selected.version ? 'active' : '',
                },
                `v${v.version} `,
                v.labels.map((l) => badge(l, l === 'production' ? 'ok' : 'muted')),
                v.commitMessage ? h('div', { class: 'hint' }, v.commitMessage) : null,
              ),
            ),
          ),
        ),
      ),
      h(
        'div',
        { class: 'page' },
        section(
          `Version ${selected.version}`,
          h(
            'p',
            { class: 'hint' },
            `Created ${dateTime(selected.createdAt)}${selected.createdBy ? ` by ${selected.createdBy}` : ''}${selected.commitMessage ? ` · ${selected.commitMessage}` : ''}`,
          ),
          h(
            'div',
            { class: 'row' },
            'Labels: ',
            selected.labels.length
              ? selected.labels.map((l) => badge(l, l === 'production' ? 'ok' : 'muted'))
              : h('span', { class: 'hint' }, 'none'),
          ),
          ctx.canChange ? labelEditor(ctx, selected) : null,
          h('h3', null, selected.type === 'chat' ? 'Messages' : 'Text'),
          content(selected),
          selected.config && Object.keys(selected.config as object).length
            ? [h('h3', null, 'Config'), h('pre', { class: 'io' }, asText(selected.config))]
            : null,
        ),
        section(
          `Diff against another version`,
          h('div', { class: 'row' }, compare),
          diff ?? h('p', { class: 'hint' }, 'Pick a version to see what changed from it to this one.'),
        ),
      ),
    ),
  );
}
