// Prompts: names grouped into folders; a prompt's versions with their labels, text or chat messages and config, a
// diff between any two versions, what used each version, and (members and up) its labels, which move off the version
// that had them.
import { get, inProject } from '../api.ts';
import { h } from '../dom.ts';
import { asText, dateTime, ms, num, usd } from '../format.ts';
import { href, seg } from '../router.ts';
import type { Page } from '../types.ts';
import { badge, empty, field, pageHeader, section, stat, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';
import { promptDiff } from './prompt-diff.ts';
import { labelEditor } from './prompt-labels.ts';
import {
  isPlaceholder,
  labelBadge,
  type PromptGeneration,
  type PromptVersion,
  type PromptVersionUsage,
} from './prompt-model.ts';
import { generationsTable, versionMetrics } from './prompt-usage.ts';

interface PromptName {
  name: string;
  folder: string | null;
  type: 'text' | 'chat';
  versions: number[];
  labels: string[];
  tags?: string[];
  lastUpdatedAt: string;
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
                    cell: (p) => h('span', { class: 'actions' }, p.labels.map(labelBadge)),
                  },
                  { title: 'Updated', cell: (p) => dateTime(p.lastUpdatedAt) },
                ],
                { testid: `prompts-${folder || 'root'}` },
              ),
            ),
          ),
  );
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
        h('div', { class: 'msg-role' }, isPlaceholder(m) ? `placeholder ${m.name ?? ''}` : (m.role ?? '?')),
        isPlaceholder(m) ? null : h('pre', { class: 'io' }, asText(m.content)),
      ),
    ),
  );
}

/** A select of versions that sets `key` in the page's query; `pick` is the text of an empty first option. */
function versionSelect(
  ctx: ViewContext,
  key: 'base' | 'v',
  versions: PromptVersion[],
  chosen: number | undefined,
  pick?: string,
) {
  const label = key === 'v' ? 'with' : 'Compare';
  return field(
    label,
    h(
      'select',
      {
        'aria-label': label,
        'data-testid': `diff-${key === 'v' ? 'target' : 'base'}`,
        onchange: (e: Event) => ctx.setQuery({ [key]: (e.target as HTMLSelectElement).value || undefined }),
      },
      pick ? h('option', { value: '' }, pick) : null,
      versions.map((v) => h('option', { value: String(v.version), selected: v.version === chosen }, `v${v.version}`)),
    ),
  );
}

/** The selected version against `?base=` (by default the version before it). */
function compareSection(ctx: ViewContext, sorted: PromptVersion[], selected: PromptVersion): HTMLElement {
  const others = sorted.filter((v) => v !== selected);
  const base =
    others.find((v) => String(v.version) === ctx.query.get('base')) ?? others.find((v) => v.version < selected.version);
  return section(
    'Compare versions',
    h(
      'div',
      { class: 'row' },
      versionSelect(ctx, 'base', others, base?.version, base ? undefined : 'a version'),
      versionSelect(ctx, 'v', sorted, selected.version),
    ),
    base
      ? promptDiff(base, selected)
      : h(
          'p',
          { class: 'hint' },
          others.length
            ? `v${selected.version} is the first version: pick another one to compare with.`
            : 'This prompt has one version.',
        ),
  );
}

function usageSection(
  ctx: ViewContext,
  v: PromptVersion,
  u: PromptVersionUsage | undefined,
  latest: PromptGeneration[],
) {
  return section(
    `Generations using v${v.version}`,
    h(
      'div',
      { class: 'stats' },
      stat('Generations', num(u?.generations ?? 0), 'usage-generations'),
      stat('Avg latency', ms(u?.avgLatencyMs), 'usage-avg-latency'),
      stat('p50 latency', ms(u?.p50LatencyMs), 'usage-p50-latency'),
      stat('Tokens (in / out)', `${num(u?.inputTokens ?? 0)} / ${num(u?.outputTokens ?? 0)}`, 'usage-tokens'),
      stat('Total cost', usd(u?.totalCost ?? 0), 'usage-cost'),
    ),
    h('h3', null, 'Newest'),
    generationsTable(ctx, latest),
  );
}

const generationCount = (n: number) => `${num(n)} generation${n === 1 ? '' : 's'}`;

export async function promptPage(ctx: ViewContext): Promise<Node> {
  const name = ctx.params.name!;
  const path = inProject(ctx.project, `/prompts/${encodeURIComponent(name)}`);
  const [{ versions }, usage] = await Promise.all([
    get<{ name: string; versions: PromptVersion[] }>(path),
    get<Page<PromptVersionUsage>>(`${path}/usage`),
  ]);
  const sorted = [...versions].sort((a, b) => b.version - a.version);
  const selected = sorted.find((v) => String(v.version) === ctx.query.get('v')) ?? sorted[0]!;
  const latest = await get<Page<PromptGeneration>>(`${path}/versions/${selected.version}/generations`);
  const used = new Map(usage.data.map((u) => [u.version, u]));
  const link = (v: PromptVersion) =>
    promptHref(ctx, name, { v: String(v.version), base: ctx.query.get('base') ?? undefined });
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
              { 'data-version': String(v.version) },
              h(
                'a',
                { href: link(v), class: v.version === selected.version ? 'active' : '' },
                h('span', { class: 'version-no' }, `v${v.version}`),
                ' ',
                v.labels.map(labelBadge),
                v.commitMessage ? h('div', { class: 'hint' }, v.commitMessage) : null,
                h('div', { class: 'hint' }, generationCount(used.get(v.version)?.generations ?? 0)),
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
          labelEditor(ctx, selected, sorted),
          h('h3', null, selected.type === 'chat' ? 'Messages' : 'Text'),
          content(selected),
          selected.config && Object.keys(selected.config as object).length
            ? [h('h3', null, 'Config'), h('pre', { class: 'io' }, asText(selected.config))]
            : null,
        ),
        compareSection(ctx, sorted, selected),
        usageSection(ctx, selected, used.get(selected.version), latest.data),
      ),
    ),
    section('Versions and their generations', versionMetrics(sorted, usage.data, link)),
  );
}
