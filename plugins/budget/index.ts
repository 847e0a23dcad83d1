// budget: USD budgets on keys, agents, organization units and projects (src/plugin-api/budget-chain.ts), hard or
// soft, per period. Admission reserves the worst case against every budget of the chain in one atomic step of the
// shared counters; the request's real cost replaces the reservation when it ends, and goes to the spend ledger. When
// rate-limit is listed right before it, rate-limit's minute checks join that step and its settlement
// (src/plugin-api/admission-handoff.ts).
import { periodResetAt, secondsUntil } from './period-reset.ts';
import {
  type Admission,
  CountersUnavailableError,
  definePlugin,
  GatewayError,
  minuteHandoff,
  type MinuteHandoff,
  type RequestContext,
  type Settlement,
  type Spend,
  stateSlot,
  StoreUnavailableError,
} from '../../src/plugin-api/index.ts';
import { budgetPlanner, NANO, type Plan } from './budget-plan.ts';
import schema from './schema.json' with { type: 'json' };

interface Reservation {
  /** Absent when no budget applies and only rate-limit's checks were admitted here. */
  plan?: Plan;
  periodIds: string[];
  /** rate-limit's part of the admission, settled with the budgets', and the minute window it went into. */
  minute?: { window: number; handoff: MinuteHandoff };
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

/** A counter is seeded from the spend ledger; with the store unreachable the budget cannot be checked: 503. */
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

/** Nano-USD the request really cost (`ctx.consumed()`); the reservation when that cannot be known. */
function realCostNano(ctx: RequestContext, reservedNano: number): number {
  const consumed = ctx.consumed();
  return consumed ? Math.round(consumed.usd * NANO) : reservedNano;
}

function exceeded(plan: Plan, r: Extract<Admission, { side: 'period' }>, now: number): GatewayError {
  const b = plan.chain[r.failed];
  const limit = plan.checks[r.failed].limit!;
  const left = Math.max(0, limit - r.values[r.failed]);
  // A daily or monthly budget refills when its period resets: retry-after says when (clients retry 429s after
  // it, docs/api.md "Errors"). A total budget never refills, so waiting would not help and there is no retry-after.
  const resetAt = periodResetAt(r.periodIds[r.failed]);
  const resets = resetAt === undefined ? '' : ` It resets at ${new Date(resetAt).toISOString()}.`;
  return new GatewayError(
    'budget_exceeded',
    `Budget exceeded: ${b.label} has ${usd(left)} of its ${b.period} budget of ${usd(limit)} left, and this request may cost up to ${usd(plan.reservedNano)}.${resets}`,
    {
      retryAfter: resetAt === undefined ? undefined : secondsUntil(resetAt, now),
      details: { budget: b.id, period: b.period, limit_usd: b.usd, spent_usd: r.values[r.failed] / NANO },
    },
  );
}

/** Every budget charged its real cost in place of what it reserved, and rate-limit's tokens settled with them. */
function settlementOf(ctx: RequestContext, r: Reservation, real: number): Settlement {
  const { plan, minute } = r;
  return {
    period: plan
      ? plan.chain.map((b, i) => ({
          key: plan.checks[i].key,
          periodId: r.periodIds[i],
          delta: b.hard ? real - plan.reservedNano : real,
        }))
      : [],
    minute: minute && { minute: minute.window, adjustments: minute.handoff.settlement(ctx) },
  };
}

function spendOf(ctx: RequestContext, plan: Plan, periodIds: string[], real: number): Spend[] {
  return plan.chain.map((b, i) => ({
    budgetId: b.id,
    periodId: periodIds[i],
    projectId: ctx.principal!.projectId,
    usdNano: real,
  }));
}

export default definePlugin({
  apiVersion: 1,
  name: 'budget',
  configSchema: schema,
  setup(_config, services) {
    const planOf = budgetPlanner(services);

    /**
     * Admits the plan and rate-limit's handed-off checks in one counters step, seeding from the ledger each counter
     * the store has no value for yet (a new period, a Redis that restarted), and keeps the reservation.
     */
    async function admit(ctx: RequestContext, plan: Plan | undefined, handoff: MinuteHandoff | undefined) {
      const checks = { minute: handoff?.checks ?? [], period: plan?.checks ?? [] };
      for (let round = 0; ; round++) {
        // The first call speaks for rate-limit when it has checks, as rate-limit alone asked the counters first.
        const failed = round === 0 && handoff ? handoff.unavailable : unavailable;
        const r = await services.counters.admit(checks).catch(failed);
        if (r.outcome === 'unseeded') {
          if (round > checks.period.length) throw new Error('budget counters could not be seeded');
          const id = r.periodIds[r.index];
          const spent = await services.spend.spent(plan!.chain[r.index].id, id).catch(ledgerUnavailable);
          await services.counters.seedPeriod(checks.period[r.index].key, id, spent).catch(unavailable);
          continue;
        }
        if (r.outcome === 'refused') {
          throw r.side === 'minute' ? handoff!.refusal(r.failed, r.msLeft) : exceeded(plan!, r, services.clock.now());
        }
        if (plan) {
          const overSoft = plan.chain
            .filter((b, i) => !b.hard && r.values[i] + plan.reservedNano > Math.round(b.usd * NANO))
            .map((b) => b.id);
          if (overSoft.length > 0) ctx.annotations['gateway.budget_soft_exceeded'] = overSoft;
        }
        ctx.state.set(reservation, { plan, periodIds: r.periodIds, minute: handoff && { window: r.minute, handoff } });
        return;
      }
    }

    return {
      async onRequest(ctx) {
        const handoff = ctx.state.get(minuteHandoff);
        let plan: Plan | undefined;
        try {
          plan = planOf(ctx);
        } catch (err) {
          // Refused before any counter: rate-limit still refuses first, and counts the request, as when alone.
          if (handoff) await admit(ctx, undefined, handoff);
          throw err;
        }
        if (plan || handoff) await admit(ctx, plan, handoff);
      },
      onLog(ctx) {
        const r = ctx.state.get(reservation);
        if (!r) return;
        const real = r.plan ? realCostNano(ctx, r.plan.reservedNano) : 0;
        services.counters.settle(settlementOf(ctx, r, real)).catch((err: Error) => {
          ctx.log.warn(
            "budget: settlement failed; budget reservations stand until their counter is seeded again (rate-limit's tokens settled with them, until their minute ends)",
            { requestId: ctx.id, error: err.message },
          );
        });
        if (r.plan && real > 0) services.spend.record(spendOf(ctx, r.plan, r.periodIds, real));
      },
    };
  },
});
