// Budgets a request can be held to, with the spend against each in its current period.
import { get, inProject } from '../api.ts';
import { h } from '../dom.ts';
import { usd } from '../format.ts';
import type { Page } from '../types.ts';
import { badge, pageHeader, section, table } from '../ui.ts';
import type { ViewContext } from '../view.ts';

interface Budget {
  scope: 'key' | 'agent' | 'unit' | 'project' | string;
  id: string;
  name: string;
  budgetId?: string;
  kind: 'hard' | 'soft';
  period: string;
  periodId: string;
  limitUsd: number;
  spentUsd: number;
}

function meter(spent: number, limit: number): HTMLElement {
  const share = limit > 0 ? spent / limit : 0;
  const kind = share >= 1 ? 'bad' : share >= 0.8 ? 'warn' : 'ok';
  return h(
    'div',
    { class: `meter ${kind}`, role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': limit, 'aria-valuenow': spent },
    h('div', { class: 'meter-fill', style: `width: ${Math.min(100, share * 100).toFixed(1)}%` }),
  );
}

/** The period, and which one is current for budgets that reset: `daily (2026-11-25 UTC)`, `monthly (2026-11)`, `total`. */
function periodText(b: Budget): string {
  const day = /^d(\d+)$/.exec(b.periodId);
  if (day) return `${b.period} (${new Date(Number(day[1]) * 86_400_000).toISOString().slice(0, 10)} UTC)`;
  const month = /^m(\d{4}-\d{2})$/.exec(b.periodId);
  if (month) return `${b.period} (${month[1]})`;
  return b.period;
}

function used(spent: number, limit: number): string {
  if (limit <= 0) return '–';
  const share = (spent / limit) * 100;
  return share > 0 && share < 0.1 ? '< 0.1 %' : `${share.toFixed(1)} %`;
}

export async function budgetsPage(ctx: ViewContext): Promise<Node> {
  const budgets = await get<Page<Budget>>(inProject(ctx.project, '/budgets'));
  return h(
    'div',
    { class: 'page' },
    pageHeader('Budgets'),
    section(
      'Spend in the current period',
      table(
        budgets.data,
        [
          { title: 'Scope', cell: (b) => badge(b.scope) },
          { title: 'Name', cell: (b) => b.name },
          { title: 'Kind', cell: (b) => badge(b.kind, b.kind === 'hard' ? 'warn' : 'muted') },
          { title: 'Period', cell: periodText },
          { title: 'Spent', cell: (b) => usd(b.spentUsd), class: 'num' },
          { title: 'Limit', cell: (b) => usd(b.limitUsd), class: 'num' },
          { title: '', cell: (b) => meter(b.spentUsd, b.limitUsd) },
          { title: 'Used', cell: (b) => used(b.spentUsd, b.limitUsd), class: 'num' },
        ],
        { testid: 'budgets', emptyText: 'No budgets apply in this project.' },
      ),
    ),
  );
}
