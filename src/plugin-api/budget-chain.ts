// The budgets a request is held to: its key's, its agent's, its organization unit's and that unit's ancestors',
// and its project's (issue order: key → unit → parent units → project, plus the key's agent).
import type { BudgetConfig, BudgetPeriod, GatewayConfig, OrgUnitConfig } from '../platform/config/types.ts';
import { unitChain } from '../platform/config/unit-chain.ts';
import type { Principal } from './contract.ts';

export interface ChainBudget {
  /** Stable id of the budget: `<scope>:<id>:<period>`, the spend ledger's and the counters' key. */
  id: string;
  /** For messages: "key 'ci'", "unit 'team-a'". */
  label: string;
  usd: number;
  period: BudgetPeriod;
  hard: boolean;
}

/** The chain entries of one holder's budgets (also listed by the dashboard). */
export const budgetsOf = (scope: string, id: string, label: string, budgets: readonly BudgetConfig[]): ChainBudget[] =>
  budgets.map((b) => ({
    id: `${scope}:${id}:${b.period}${b.mode === 'soft' ? ':soft' : ''}`,
    label,
    usd: b.usd,
    period: b.period,
    hard: b.mode === 'hard',
  }));

/** Builds chains from one configuration; a chain depends only on the key, so it is computed once per key. */
export class BudgetChains {
  readonly #units: Map<string, OrgUnitConfig>;
  readonly #projects: Map<string, BudgetConfig[]>;
  readonly #agents: Map<string, BudgetConfig[]>;
  readonly #cache = new Map<string, ChainBudget[] | { invalid: string }>();

  constructor(config: GatewayConfig) {
    this.#units = new Map(config.org_units.map((u) => [u.id, u]));
    this.#projects = new Map(config.projects.map((p) => [p.id, p.budgets]));
    this.#agents = new Map(config.agents.map((a) => [a.id, a.budgets]));
  }

  /** The chain, or why it cannot be built. */
  of(p: Principal): ChainBudget[] | { invalid: string } {
    const cacheKey = `${p.keyId}\u0000${p.unit ?? ''}\u0000${p.agentId ?? ''}\u0000${p.budgetUsd ?? ''}\u0000${p.budgetPeriod ?? ''}`;
    let chain = this.#cache.get(cacheKey);
    if (!chain) {
      chain = this.#build(p);
      this.#cache.set(cacheKey, chain);
    }
    return chain;
  }

  #build(p: Principal): ChainBudget[] | { invalid: string } {
    const out: ChainBudget[] = [];
    if (p.budgetUsd !== undefined) {
      out.push(
        ...budgetsOf('key', p.keyId, `key '${p.alias}'`, [
          { usd: p.budgetUsd, period: p.budgetPeriod ?? 'total', mode: 'hard' },
        ]),
      );
    }
    if (p.agentId !== undefined)
      out.push(...budgetsOf('agent', p.agentId, `agent '${p.agentId}'`, this.#agents.get(p.agentId) ?? []));
    if (p.unit !== undefined) {
      const chain = unitChain(this.#units, p.unit, p.projectId);
      if (!chain.ok) return { invalid: chain.reason };
      for (const u of chain.units) out.push(...budgetsOf('unit', u.id, `unit '${u.id}'`, u.budgets));
    }
    out.push(...budgetsOf('project', p.projectId, `project '${p.projectId}'`, this.#projects.get(p.projectId) ?? []));
    return out;
  }
}
