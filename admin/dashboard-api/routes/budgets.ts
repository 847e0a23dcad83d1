// Dashboard budgets of a project: every hard and soft budget a request can be held to (docs/configuration.md: key,
// agent, organization unit, project; src/plugin-api/budget-chain.ts), with what was spent against it in its current
// period (the spend ledger).
import type { FastifyInstance } from 'fastify';
import { budgetsOf, type ChainBudget } from '../../../src/plugin-api/budget-chain.ts';
import type { GatewayConfig } from '../../../src/platform/config/types.ts';
import { periodId } from '../../../src/platform/store/counters/periods.ts';
import { listGatewayKeys } from '../../../src/platform/store/repos/gateway-keys.ts';
import type { AdminContext } from '../../context.ts';
import { projectOf } from '../project-scope.ts';
import { requireSession } from '../session-guard.ts';

type Scope = 'key' | 'agent' | 'unit' | 'project';

interface Holder {
  scope: Scope;
  id: string;
  name: string;
  budgets: ChainBudget[];
}

/** Holders in chain order: keys (gateway.yaml's and the store's), agents, units, the project. */
function configuredHolders(config: GatewayConfig, projectId: string): Holder[] {
  const holders: Holder[] = [];
  for (const k of config.keys) {
    if (k.project !== projectId || k.budget_usd === undefined) continue;
    holders.push({
      scope: 'key',
      id: k.alias,
      name: k.alias,
      budgets: budgetsOf('key', k.alias, k.alias, [{ usd: k.budget_usd, period: k.budget_period, mode: 'hard' }]),
    });
  }
  for (const a of config.agents) {
    if (a.project === projectId)
      holders.push({ scope: 'agent', id: a.id, name: a.name, budgets: budgetsOf('agent', a.id, a.name, a.budgets) });
  }
  for (const u of config.org_units) {
    if (u.project === projectId)
      holders.push({
        scope: 'unit',
        id: u.id,
        name: u.name ?? u.id,
        budgets: budgetsOf('unit', u.id, u.name ?? u.id, u.budgets),
      });
  }
  const project = config.projects.find((p) => p.id === projectId);
  if (project)
    holders.push({
      scope: 'project',
      id: project.id,
      name: project.name ?? project.id,
      budgets: budgetsOf('project', project.id, project.name ?? project.id, project.budgets),
    });
  return holders;
}

export function registerDashboardBudgets(app: FastifyInstance, ctx: AdminContext): void {
  app.get('/projects/:project/budgets', { onRequest: requireSession(ctx, 'viewer') }, async (req) => {
    const project = await projectOf(ctx, req);
    // Minted keys have one hard budget over their whole life (mint-key.ts).
    const storedKeys: Holder[] = (await listGatewayKeys(ctx.db, project.id))
      .filter((k) => k.budgetUsd !== undefined)
      .map((k) => ({
        scope: 'key',
        id: k.id,
        name: k.alias,
        budgets: budgetsOf('key', k.id, k.alias, [{ usd: k.budgetUsd!, period: 'total', mode: 'hard' }]),
      }));
    const configured = configuredHolders(ctx.config(), project.id);
    const holders = [
      ...configured.filter((h) => h.scope === 'key'),
      ...storedKeys,
      ...configured.filter((h) => h.scope !== 'key'),
    ];
    const now = ctx.clock.now();
    const rows = holders.flatMap((h) => h.budgets.map((b) => ({ h, b, period: periodId(b.period, now) })));
    const spent = await Promise.all(rows.map(({ b, period }) => ctx.spend.spent(b.id, period)));
    return {
      data: rows.map(({ h, b, period }, i) => ({
        scope: h.scope,
        id: h.id,
        name: h.name,
        budgetId: b.id,
        kind: b.hard ? 'hard' : 'soft',
        period: b.period,
        periodId: period,
        limitUsd: b.usd,
        spentUsd: spent[i]! / 1e9,
      })),
    };
  });
}
