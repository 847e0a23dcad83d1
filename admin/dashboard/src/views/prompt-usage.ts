// What used a prompt: per version, the generations ingested with its promptName and promptVersion (count, latency,
// tokens, cost, when), and the newest generations of the selected version, each linking to its trace.
import { h } from '../dom.ts';
import { dateTime, ms, num, usd } from '../format.ts';
import { href, seg } from '../router.ts';
import { table } from '../ui.ts';
import type { ViewContext } from '../view.ts';
import { labelBadge, type PromptGeneration, type PromptVersion, type PromptVersionUsage } from './prompt-model.ts';

const NONE: Omit<PromptVersionUsage, 'version'> = {
  generations: 0,
  avgLatencyMs: null,
  p50LatencyMs: null,
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  totalCost: 0,
  firstUsedAt: '',
  lastUsedAt: '',
};

/** Every version, with what used it (zeros for a version nothing used yet). */
export function versionMetrics(
  versions: PromptVersion[],
  usage: PromptVersionUsage[],
  link: (v: PromptVersion) => string,
): HTMLElement {
  const byVersion = new Map(usage.map((u) => [u.version, u]));
  const rows = versions.map((v) => ({ v, u: byVersion.get(v.version) ?? { ...NONE, version: v.version } }));
  return table(
    rows,
    [
      { title: 'Version', cell: ({ v }) => h('a', { href: link(v) }, `v${v.version}`) },
      { title: 'Labels', cell: ({ v }) => h('span', { class: 'actions' }, v.labels.map(labelBadge)) },
      { title: 'Generations', cell: ({ u }) => num(u.generations), class: 'num' },
      { title: 'Avg latency', cell: ({ u }) => ms(u.avgLatencyMs), class: 'num' },
      { title: 'p50 latency', cell: ({ u }) => ms(u.p50LatencyMs), class: 'num' },
      { title: 'Input tokens', cell: ({ u }) => num(u.inputTokens), class: 'num' },
      { title: 'Output tokens', cell: ({ u }) => num(u.outputTokens), class: 'num' },
      { title: 'Total cost', cell: ({ u }) => usd(u.totalCost), class: 'num' },
      { title: 'Last used', cell: ({ u }) => (u.generations ? dateTime(u.lastUsedAt) : '–') },
    ],
    { testid: 'version-metrics', rowAttrs: ({ v }) => ({ 'data-version': String(v.version) }) },
  );
}

export function generationsTable(ctx: ViewContext, rows: PromptGeneration[]): HTMLElement {
  return table(
    rows,
    [
      { title: 'Started', cell: (g) => h('span', { class: 'mono nowrap' }, dateTime(g.startTime)) },
      {
        title: 'Generation',
        cell: (g) =>
          h(
            'a',
            { href: href(`/p/${seg(ctx.project)}/traces/${seg(g.traceId)}`), 'data-testid': 'generation-trace' },
            g.name ?? g.id,
          ),
      },
      { title: 'Model', cell: (g) => g.model ?? '–' },
      { title: 'Latency', cell: (g) => ms(g.latencyMs), class: 'num' },
      { title: 'Tokens', cell: (g) => num(g.totalTokens), class: 'num' },
      { title: 'Cost', cell: (g) => usd(g.totalCost), class: 'num' },
    ],
    { testid: 'version-generations', emptyText: 'No generation has used this version yet.' },
  );
}
