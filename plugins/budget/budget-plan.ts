// What a request reserves against its budget chain: a check per budget of the key's chain
// (src/plugin-api/budget-chain.ts). Hard budgets reserve the worst case (worst-case.ts) in integer nano-USD; soft ones
// reserve nothing and are charged what the request cost when it ends.
import {
  BudgetChains,
  type ChainBudget,
  type DeploymentConfig,
  deploymentPrice,
  GatewayError,
  type PeriodCheck,
  projectTag,
  type RequestContext,
  type Services,
} from '../../src/plugin-api/index.ts';
import { worstCaseCost } from './worst-case.ts';

export const NANO = 1e9;

export interface Plan {
  chain: ChainBudget[];
  checks: PeriodCheck[];
  reservedNano: number;
}

/** Plans requests against the budgets of `services.config`, priced at its deployments' prices. */
export function budgetPlanner(services: Services): (ctx: RequestContext) => Plan | undefined {
  const chains = new BudgetChains(services.config);
  const prices = new Map<string, ReturnType<typeof deploymentPrice>>();
  for (const g of services.config.model_groups) for (const d of g.deployments) prices.set(d.id, deploymentPrice(d));
  const priceOf = (d: DeploymentConfig) => prices.get(d.id);

  /** The request's budget checks; undefined when no budget applies. Throws the refusals that need no counter. */
  return function planOf(ctx: RequestContext): Plan | undefined {
    const principal = ctx.principal;
    if (ctx.route === 'models' || !principal || !ctx.group) return undefined;
    const chain = chains.of(principal);
    if ('invalid' in chain) {
      throw new GatewayError(
        'budget_config_invalid',
        `The budget chain of key '${principal.alias}' cannot be built: ${chain.invalid}. Fix org_units in gateway.yaml.`,
      );
    }
    if (chain.length === 0) return undefined;
    const candidates = services.modelGroups
      .chain(ctx.group)
      .flatMap((g) => g.deployments)
      .filter((d) => d.weight > 0 && (ctx.route !== 'embeddings' || d.embeddings !== false));
    const worst = worstCaseCost(ctx, candidates, priceOf);
    const hard = chain.filter((b) => b.hard);
    if ('unpriced' in worst) {
      if (hard.length > 0) {
        const d = worst.unpriced;
        throw new GatewayError(
          'budget_unpriced_model',
          `No price is known for model '${d.model ?? d.id}' (deployment '${d.id}'), and ${hard[0].label} has a hard budget: set price on the deployment in gateway.yaml.`,
          { details: { deployment: d.id, budget: hard[0].id } },
        );
      }
    }
    const reservedNano = 'usd' in worst ? Math.ceil(worst.usd * NANO) : 0;
    const tag = projectTag(principal.projectId);
    const checks: PeriodCheck[] = chain.map((b) => ({
      key: `${tag}:budget:${b.id}`,
      period: b.period,
      amount: b.hard ? reservedNano : 0,
      limit: b.hard ? Math.round(b.usd * NANO) : undefined,
    }));
    return { chain, checks, reservedNano };
  };
}
