// budget: USD budgets on keys, agents, organization units and projects (budget-chain.ts), hard or soft, per
// period. Admission reserves the worst case against every budget of the chain in one atomic step of the shared
// counters; the request's real cost replaces the reservation when it ends, and goes to the spend ledger.
import { BudgetChains, type ChainBudget } from '../../src/budget/budget-chain.ts';
import { periodResetAt, secondsUntil } from '../../src/budget/period-reset.ts';
import {
  CountersUnavailableError,
  definePlugin,
  GatewayError,
  projectTag,
  stateSlot,
  StoreUnavailableError,
  type DeploymentConfig,
  type PeriodAdmission,
  type PeriodCheck,
  type RequestContext,
} from '../../src/plugin-api.ts';
import { deploymentPrice } from '../../src/pricing/prices.ts';
import schema from './schema.json' with { type: 'json' };
import { worstCaseCost } from './worst-case.ts';

const NANO = 1e9;

interface Reservation {
  chain: ChainBudget[];
  checks: PeriodCheck[];
  periodIds: string[];
  reservedNano: number;
}

const reservation = stateSlot<Reservation>('budget.reservation');

const usd = (nano: number) => `$${(nano / NANO).toFixed(6).replace(/0{1,4}$/, '')}`;

function unavailable(err: unknown): never {
  if (err instanceof CountersUnavailableError) {
    throw new GatewayError(
      'gateway_config_stale',
      'The gateway cannot enforce its budgets: its counters store is unavailable. Retry shortly.',
      { cause: err },
    );
  }
  throw err;
}

/** A counter is seeded from the spend ledger; with the store unreachable the budget cannot be checked (spec: 503). */
function ledgerUnavailable(err: unknown): never {
  if (err instanceof StoreUnavailableError) {
    throw new GatewayError(
      'gateway_config_stale',
      'The gateway cannot enforce its budgets: its store is unreachable, so the spend so far cannot be read. Retry shortly.',
      { cause: err },
    );
  }
  throw err;
}

/**
 * Nano-USD the request really cost: the cost of the provider's usage; nothing for a cache hit or when no provider
 * answered; the reservation when a provider answered without usage (the cost cannot be known, so it is not undercounted).
 */
function realCostNano(ctx: RequestContext, reservedNano: number): number {
  if (ctx.source === 'cache') return 0;
  if (ctx.usage) return Math.round((ctx.cost ?? 0) * NANO);
  return ctx.attempts.some((a) => a.o === 'ok') ? reservedNano : 0;
}

export default definePlugin({
  apiVersion: 1,
  name: 'budget',
  configSchema: schema,
  setup(_config, services) {
    const chains = new BudgetChains(services.config);
    const prices = new Map<string, ReturnType<typeof deploymentPrice>>();
    for (const g of services.config.model_groups) for (const d of g.deployments) prices.set(d.id, deploymentPrice(d));
    const priceOf = (d: DeploymentConfig) => prices.get(d.id);

    /** Admits, seeding from the ledger each counter the store has no value for yet (a new period, a Redis that restarted). */
    async function admit(
      checks: PeriodCheck[],
      chain: ChainBudget[],
    ): Promise<Exclude<PeriodAdmission, { outcome: 'unseeded' }>> {
      for (let round = 0; ; round++) {
        const r = await services.counters.admitPeriod(checks).catch(unavailable);
        if (r.outcome !== 'unseeded') return r;
        if (round > checks.length) throw new Error('budget counters could not be seeded');
        const spent = await services.spend.spent(chain[r.index].id, r.periodIds[r.index]).catch(ledgerUnavailable);
        await services.counters.seedPeriod(checks[r.index].key, r.periodIds[r.index], spent).catch(unavailable);
      }
    }

    return {
      async onRequest(ctx) {
        const principal = ctx.principal;
        if (ctx.route === 'models' || !principal || !ctx.group) return;
        const chain = chains.of(principal);
        if ('invalid' in chain) {
          throw new GatewayError(
            'budget_config_invalid',
            `The budget chain of key '${principal.alias}' cannot be built: ${chain.invalid}. Fix org_units in gateway.yaml.`,
          );
        }
        if (chain.length === 0) return;
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
        const r = await admit(checks, chain);
        if (r.outcome === 'refused') {
          const b = chain[r.failed];
          const limit = checks[r.failed].limit!;
          const left = Math.max(0, limit - r.values[r.failed]);
          // A daily or monthly budget refills when its period resets: retry-after says when (spec: clients retry 429s
          // after it). A total budget never refills, so waiting would not help and there is no retry-after.
          const resetAt = periodResetAt(r.periodIds[r.failed]);
          const resets = resetAt === undefined ? '' : ` It resets at ${new Date(resetAt).toISOString()}.`;
          throw new GatewayError(
            'budget_exceeded',
            `Budget exceeded: ${b.label} has ${usd(left)} of its ${b.period} budget of ${usd(limit)} left, and this request may cost up to ${usd(reservedNano)}.${resets}`,
            {
              retryAfter: resetAt === undefined ? undefined : secondsUntil(resetAt, services.clock.now()),
              details: { budget: b.id, period: b.period, limit_usd: b.usd, spent_usd: r.values[r.failed] / NANO },
            },
          );
        }
        const overSoft = chain
          .filter((b, i) => !b.hard && r.values[i] + reservedNano > Math.round(b.usd * NANO))
          .map((b) => b.id);
        if (overSoft.length > 0) ctx.annotations['gateway.budget_soft_exceeded'] = overSoft;
        ctx.state.set(reservation, { chain, checks, periodIds: r.periodIds, reservedNano });
      },
      onLog(ctx) {
        const r = ctx.state.get(reservation);
        if (!r) return;
        const real = realCostNano(ctx, r.reservedNano);
        const adjustments = r.chain.map((b, i) => ({
          key: r.checks[i].key,
          periodId: r.periodIds[i],
          delta: b.hard ? real - r.reservedNano : real,
        }));
        services.counters.adjustPeriod(adjustments).catch((err: Error) => {
          ctx.log.warn('budget: settlement failed; the reservation stands until the counter is seeded again', {
            requestId: ctx.id,
            error: err.message,
          });
        });
        if (real > 0) {
          services.spend.record(
            r.chain.map((b, i) => ({
              budgetId: b.id,
              periodId: r.periodIds[i],
              projectId: ctx.principal!.projectId,
              usdNano: real,
            })),
          );
        }
      },
    };
  },
});
