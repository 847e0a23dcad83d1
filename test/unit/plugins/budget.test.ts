// The budget plugin called directly, with in-memory counters, an in-memory spend ledger and a fake clock: the worst
// case reserved at admission against every budget of the chain, the refusals and what they say, settlement to the
// real cost, soft budgets, unpriced models, chains that cannot be built, seeding from the ledger, retry-after.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import authPlugin from '../../../plugins/auth/index.ts';
import budgetPlugin from '../../../plugins/budget/index.ts';
import {
  CountersUnavailableError,
  GatewayError,
  StoreUnavailableError,
  type PluginHooks,
  type Usage,
} from '../../../src/plugin-api/index.ts';
import { costOf } from '../../../src/platform/pricing/cost.ts';
import { DurableSpendLedger } from '../../../src/gateway/budget/spend-ledger.ts';
import { silentLogger } from '../../../src/platform/telemetry/logger.ts';
import { testDatabase } from '../../helpers/store.ts';
import { makeCtx, pluginServices, setupPlugin, type PluginServices, type TestCtx } from '../../helpers/plugin.ts';
import { openaiDeployment } from '../../helpers/test-config.ts';
import { HELLO_PROMPT, key, NANO, PRICE, TENTH, USED } from '../../helpers/budget-fixtures.ts';

const PER_REQUEST = 0.029;

const CONFIG = {
  projects: [
    { id: 'default', name: 'Default' },
    { id: 'soft-proj', name: 'Soft', budgets: [{ usd: 0.01, period: 'monthly', mode: 'soft' }] },
    { id: 'capped', name: 'Capped', budgets: [{ usd: 0.3, period: 'monthly' }] },
  ],
  model_groups: [
    { name: 'fast', deployments: [{ id: 'fast-mock', provider: 'mock', model: 'mock-small', price: PRICE }] },
    {
      name: 'chained',
      fallback: 'pricey',
      deployments: [{ id: 'chained-mock', provider: 'mock', model: 'mock-small', price: PRICE }],
    },
    {
      name: 'pricey',
      deployments: [
        {
          id: 'pricey-mock',
          provider: 'mock',
          model: 'mock-small',
          price: { input_per_mtok: 2000, output_per_mtok: 2000 },
        },
      ],
    },
    {
      name: 'unpriced',
      deployments: [openaiDeployment('unpriced-up', 'http://provider.invalid', { model: 'no-such-model' })],
    },
    {
      name: 'gpt',
      deployments: [openaiDeployment('gpt-up', 'http://provider.invalid', { model: 'gpt-4o-mini-2024-07-18' })],
    },
  ],
  agents: [{ id: 'bot', project: 'default', name: 'bot', budgets: [{ usd: 0.05, period: 'monthly' }] }],
  org_units: [
    { id: 'eng', project: 'default', budgets: [{ usd: 0.25, period: 'daily' }] },
    { id: 'team-a', project: 'default', parent: 'eng', budgets: [{ usd: 100, period: 'monthly', mode: 'soft' }] },
    { id: 'loop-1', project: 'default', parent: 'loop-2' },
    { id: 'loop-2', project: 'default', parent: 'loop-1' },
  ],
  keys: [
    { alias: 'k10', key: key('k10'), project: 'default', model_groups: ['fast', 'chained'], budget_usd: 1 },
    { alias: 'unit-key', key: key('unit-key'), project: 'default', model_groups: ['fast'], unit: 'team-a' },
    { alias: 'agent-key', key: key('agent-key'), project: 'default', model_groups: ['fast'], agent: 'bot' },
    { alias: 'soft-key', key: key('soft-key'), project: 'soft-proj', model_groups: ['fast', 'unpriced'] },
    {
      alias: 'unpriced-key',
      key: key('unpriced-key'),
      project: 'default',
      model_groups: ['unpriced', 'gpt'],
      budget_usd: 5,
      budget_period: 'daily',
    },
    { alias: 'ghost-unit', key: key('ghost-unit'), project: 'default', model_groups: ['fast'], unit: 'ghost' },
    { alias: 'loop-key', key: key('loop-key'), project: 'default', model_groups: ['fast'], unit: 'loop-1' },
    { alias: 'capped-key', key: key('capped-key'), project: 'capped', model_groups: ['fast'] },
    { alias: 'free', key: key('free'), project: 'default', model_groups: ['unpriced'] },
    ...(['daily', 'monthly', 'total'] as const).map((period) => ({
      alias: period,
      key: key(period),
      project: 'default',
      model_groups: ['fast'],
      budget_usd: 0.1,
      budget_period: period,
    })),
  ],
};

interface Budget {
  services: PluginServices;
  hooks: PluginHooks;
  /** Authenticates as the key and asks the budget plugin to admit the request. */
  admit(name: string, extra?: Record<string, unknown>): Promise<{ ctx: TestCtx; error?: GatewayError }>;
  /** Ends an admitted request as a provider answer with this usage (the router's cost), then runs onLog. */
  settle(ctx: TestCtx, used?: Usage): void;
  counter(budgetId: string, periodId: string, project?: string): Promise<number | null>;
  /** Nano-USD and requests the ledger was given for a budget. */
  ledger(budgetId: string): { nano: number; requests: number; periods: string[] };
}

async function budget(t: Test, start = Date.parse('2027-01-10T12:00:00Z')): Promise<Budget> {
  const services = pluginServices(t, { config: CONFIG });
  services.clock.set(start);
  const auth = await setupPlugin(authPlugin, services);
  const hooks = await setupPlugin(budgetPlugin, services);
  return {
    services,
    hooks,
    async admit(name, extra = {}) {
      const group = name === 'unpriced-key' || name === 'free' ? 'unpriced' : 'fast';
      const ctx = makeCtx({
        headers: { authorization: `Bearer ${key(name)}` },
        body: { model: group, messages: [{ role: 'user', content: 'Hello' }], ...extra },
        clock: services.clock,
      });
      await auth.onRequest!(ctx);
      try {
        await hooks.onRequest!(ctx);
        return { ctx };
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        ctx.error = error;
        hooks.onLog?.(ctx);
        return { ctx, error };
      }
    },
    settle(ctx, used = USED) {
      ctx.attempts.push({ d: 'fast-mock', o: 'ok', ms: 1 });
      ctx.usage = used;
      ctx.cost = costOf(used, PRICE);
      ctx.source = 'upstream';
      hooks.onLog!(ctx);
    },
    async counter(budgetId, periodId, project = 'default') {
      const [value] = await services.counters.readPeriods([{ key: `{p:${project}}:budget:${budgetId}`, periodId }]);
      return value;
    },
    ledger(budgetId) {
      const rows = services.spend.records.filter((s) => s.budgetId === budgetId);
      return {
        nano: rows.reduce((sum, s) => sum + s.usdNano, 0),
        requests: rows.length,
        periods: [...new Set(rows.map((s) => s.periodId))],
      };
    },
  };
}

t.test(
  'a budget that fits 10 worst cases admits exactly 10 of 50 concurrent requests, then settles to real cost',
  async (t) => {
    const b = await budget(t);
    const results = await Promise.all(Array.from({ length: 50 }, () => b.admit('k10', { max_tokens: TENTH })));
    const admitted = results.filter((r) => !r.error);
    const refused = results.filter((r) => r.error);
    t.equal(admitted.length, 10, 'exactly ten reservations of $0.10 fit in $1');
    t.equal(refused.length, 40);
    const error = refused[0].error!;
    t.equal(error.code, 'budget_exceeded');
    t.equal(error.status, 429);
    t.equal(
      error.message,
      "Budget exceeded: key 'k10' has $0.00 of its total budget of $1.00 left, and this request may cost up to $0.10.",
      'the message names the budget, what is left and what the request may cost',
    );
    t.equal(error.retryAfter, undefined, 'no retry-after: waiting does not refill a total budget');
    t.same(error.details, { budget: 'key:k10:total', period: 'total', limit_usd: 1, spent_usd: 1 });
    t.equal(await b.counter('key:k10:total', 'total'), NANO, 'the counter holds the ten reservations');

    for (const { ctx } of admitted) b.settle(ctx);
    t.equal(
      await b.counter('key:k10:total', 'total'),
      Math.round(10 * PER_REQUEST * NANO),
      'reservations replaced by real cost',
    );
    t.same(b.ledger('key:k10:total'), { nano: Math.round(10 * PER_REQUEST * NANO), requests: 10, periods: ['total'] });

    // Then one at a time until refused: admitted while spent + $0.10 <= $1.
    let served = 0;
    for (;;) {
      const { ctx, error } = await b.admit('k10', { max_tokens: TENTH });
      if (error) {
        t.match(error.message, /^Budget exceeded: key 'k10' has \$0\.\d+ of its total budget of \$1\.00 left/);
        break;
      }
      b.settle(ctx);
      served++;
      if (served > 100) throw new Error('never refused');
    }
    t.equal(served, Math.floor((1 - 0.1 - 10 * PER_REQUEST) / PER_REQUEST + 1e-9) + 1, 'as many as fit');
    const total = b.ledger('key:k10:total').nano;
    t.ok(total <= NANO, `spent ${total / NANO} <= $1: no overshoot`);
    t.ok(total > NANO - 0.1 * NANO - PER_REQUEST * NANO, 'and the budget was used up to the last worst case');
    t.equal(await b.counter('key:k10:total', 'total'), total, 'the counter equals the ledger once everything settled');
  },
);

t.test('the worst case: the admission estimate at the highest price of the group and its fallback chain', async (t) => {
  const b = await budget(t);
  const { ctx } = await b.admit('k10', { model: 'chained', max_tokens: TENTH });
  t.same(ctx.estimate(), { promptTokens: HELLO_PROMPT, outputTokens: TENTH });
  t.equal(await b.counter('key:k10:total', 'total'), 0.2 * NANO, "100 tokens at the fallback's $2 per 1000");
  const noLimit = await b.admit('k10', { model: 'fast' });
  t.match(
    noLimit.error?.message,
    /may cost up to \$4\.105\.$/,
    'without max_tokens the output allowance is 4096 tokens',
  );
});

t.test('the chain: a unit ancestor, an agent and the project; each names itself when it refuses', async (t) => {
  const b = await budget(t);
  // eng: $0.25 a day, hard. Each request reserves $0.10 and really costs $0.029.
  let served = 0;
  for (;;) {
    const { ctx, error } = await b.admit('unit-key', { max_tokens: TENTH });
    if (error) {
      t.match(error.message, /^Budget exceeded: unit 'eng' has \$0\.\d+ of its daily budget of \$0\.25 left/);
      t.equal(error.retryAfter, 12 * 3600, 'retry-after: the seconds until the UTC day ends');
      t.match(error.message, / It resets at 2027-01-11T00:00:00\.000Z\.$/);
      break;
    }
    b.settle(ctx);
    served++;
    if (served > 50) throw new Error('never refused');
  }
  t.equal(served, Math.floor((0.25 - 0.1) / PER_REQUEST + 1e-9) + 1);
  const day = `d${Math.floor(b.services.clock.now() / 86_400_000)}`;
  t.same(b.ledger('unit:eng:daily').periods, [day], 'daily spend is kept per UTC day');
  t.same(
    b.ledger('unit:team-a:monthly:soft'),
    { ...b.ledger('unit:eng:daily'), periods: ['m2027-01'] },
    'the soft budget of team-a saw the same spend',
  );

  const agent = await b.admit('agent-key', { max_tokens: TENTH });
  t.match(agent.error?.message, /agent 'bot' has \$0\.05 of its monthly budget of \$0\.05 left/);
  t.equal(agent.error?.retryAfter, Math.ceil((Date.parse('2027-02-01T00:00:00Z') - b.services.clock.now()) / 1000));
  t.notOk(
    (await b.admit('agent-key', { max_tokens: 20 })).error,
    'a request whose worst case fits the agent budget passes',
  );

  // The project 'capped' ($0.30): three worst cases of $0.10 fit, the fourth does not, in any order.
  const results = await Promise.all(Array.from({ length: 4 }, () => b.admit('capped-key', { max_tokens: TENTH })));
  t.equal(results.filter((r) => r.error).length, 1);
  t.match(results.find((r) => r.error)!.error!.message, /project 'capped'/);
});

t.test('soft budgets never refuse; a request that may go past one is noted for the trace', async (t) => {
  const b = await budget(t);
  const { ctx, error } = await b.admit('soft-key');
  t.notOk(error);
  t.same(ctx.annotations['gateway.budget_soft_exceeded'], ['project:soft-proj:monthly:soft']);
  b.settle(ctx);
  t.equal(b.ledger('project:soft-proj:monthly:soft').nano, Math.round(PER_REQUEST * NANO), 'its spend is recorded');
  const unpriced = await b.admit('soft-key', { model: 'unpriced' });
  t.notOk(unpriced.error, 'an unpriced model is no problem for a soft budget');
});

t.test('409 budget_unpriced_model when a hard budget applies and the model has no price', async (t) => {
  const b = await budget(t);
  const { error } = await b.admit('unpriced-key');
  t.equal(error?.code, 'budget_unpriced_model');
  t.equal(error?.status, 409);
  t.equal(
    error?.message,
    "No price is known for model 'no-such-model' (deployment 'unpriced-up'), and key 'unpriced-key' has a hard budget: set price on the deployment in gateway.yaml.",
  );
  t.same(error?.details, { deployment: 'unpriced-up', budget: 'key:unpriced-key:daily' });
  t.notOk((await b.admit('free')).error, 'without a budget an unpriced model is served');
  // A model in the built-in price table needs no price in gateway.yaml: gpt-4o-mini, $0.15 and $0.60 per Mtok.
  t.notOk((await b.admit('unpriced-key', { model: 'gpt', max_tokens: TENTH })).error);
  const day = `d${Math.floor(b.services.clock.now() / 86_400_000)}`;
  t.equal(
    await b.counter('key:unpriced-key:daily', day),
    Math.ceil(((HELLO_PROMPT * 0.15 + TENTH * 0.6) / 1e6) * NANO),
  );
});

t.test('503 budget_config_invalid when the unit chain cannot be built', async (t) => {
  const b = await budget(t);
  for (const [name, reason] of [
    ['ghost-unit', "unknown organization unit 'ghost'"],
    ['loop-key', "organization units form a cycle through 'loop-1'"],
  ]) {
    const { error } = await b.admit(name);
    t.equal(error?.code, 'budget_config_invalid');
    t.equal(error?.status, 503);
    t.equal(
      error?.message,
      `The budget chain of key '${name}' cannot be built: ${reason}. Fix org_units in gateway.yaml.`,
    );
  }
});

t.test('settlement: real usage, a cache hit, a failure, an answer without usage', async (t) => {
  const b = await budget(t);
  const reserved = 0.1 * NANO;
  const spent = () => b.counter('key:k10:total', 'total');

  const answered = await b.admit('k10', { max_tokens: TENTH });
  t.equal(await spent(), reserved);
  b.settle(answered.ctx, { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 });
  t.equal(await spent(), Math.round(0.015 * NANO), 'a stream or an answer is charged its real usage, not the estimate');

  const cached = await b.admit('k10', { max_tokens: TENTH });
  cached.ctx.usage = USED;
  cached.ctx.cost = 0;
  cached.ctx.source = 'cache';
  b.hooks.onLog!(cached.ctx);
  t.equal(await spent(), Math.round(0.015 * NANO), 'a cache hit costs nothing: its reservation is given back');

  const failed = await b.admit('k10', { max_tokens: TENTH });
  failed.ctx.attempts.push({ d: 'fast-mock', o: 'failed', ms: 3, st: 400 });
  failed.ctx.source = 'gateway';
  b.hooks.onLog!(failed.ctx);
  t.equal(await spent(), Math.round(0.015 * NANO), 'a failure no provider answered costs nothing');

  const cut = await b.admit('k10', { max_tokens: TENTH });
  cut.ctx.attempts.push({ d: 'fast-mock', o: 'ok', ms: 3 });
  cut.ctx.source = 'upstream';
  b.hooks.onLog!(cut.ctx);
  t.equal(await spent(), Math.round(0.015 * NANO) + reserved, 'an answer without usage keeps its reservation');
  t.same(
    b.ledger('key:k10:total'),
    { nano: Math.round(0.015 * NANO) + reserved, requests: 2, periods: ['total'] },
    'the ledger got what was charged, and nothing for free requests',
  );
});

t.test('a new process seeds its counters from the ledger', async (t) => {
  const b = await budget(t);
  // Spent by an earlier process, in the ledger: $0.85 of the $1 budget.
  b.services.spend.earlier.set('key:k10:total|total', 0.85 * NANO);
  t.equal(await b.counter('key:k10:total', 'total'), null, 'this process starts with no counter');
  const first = await b.admit('k10', { max_tokens: TENTH });
  t.notOk(first.error, '$0.85 + $0.10 fits');
  t.equal(await b.counter('key:k10:total', 'total'), 0.95 * NANO, 'seeded with the earlier spend');
  const second = await b.admit('k10', { max_tokens: TENTH });
  t.match(second.error?.message, /has \$0\.05 of its total budget of \$1\.00 left/);
});

t.test('spend is durable: what one process settled, the ledger of the next one reads from the store', async (t) => {
  const db = await testDatabase(t, 'postgres');
  const dir = mkdtempSync(join(tmpdir(), 'svc-spend-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const ledgerOn = () => {
    const ledger = new DurableSpendLedger(db, { spillDir: join(dir, 'spill'), log: silentLogger, flushMs: 1 });
    ledger.start();
    return ledger;
  };
  const first = ledgerOn();
  const services = pluginServices(t, { config: CONFIG });
  const auth = await setupPlugin(authPlugin, services);
  const process1 = await setupPlugin(budgetPlugin, { ...services, spend: first });
  const ctx = makeCtx({
    headers: { authorization: `Bearer ${key('k10')}` },
    body: { model: 'fast', messages: [{ role: 'user', content: 'Hello' }], max_tokens: TENTH },
  });
  await auth.onRequest!(ctx);
  await process1.onRequest!(ctx);
  ctx.attempts.push({ d: 'fast-mock', o: 'ok', ms: 1 });
  ctx.usage = USED;
  ctx.cost = costOf(USED, PRICE);
  process1.onLog!(ctx);
  await first.stop();

  const second = ledgerOn();
  t.teardown(() => second.stop());
  t.equal(await second.spent('key:k10:total', 'total'), Math.round(PER_REQUEST * NANO), 'read back from the store');
  // A second process: fresh counters, the same store.
  const fresh = pluginServices(t, { config: CONFIG });
  const process2 = await setupPlugin(budgetPlugin, { ...fresh, spend: second });
  const next = makeCtx({
    headers: { authorization: `Bearer ${key('k10')}` },
    body: { model: 'fast', messages: [{ role: 'user', content: 'Hello' }], max_tokens: TENTH },
  });
  await (
    await setupPlugin(authPlugin, fresh)
  ).onRequest!(next);
  await process2.onRequest!(next);
  const [counter] = await fresh.counters.readPeriods([{ key: '{p:default}:budget:key:k10:total', periodId: 'total' }]);
  t.equal(counter, Math.round(PER_REQUEST * NANO) + 0.1 * NANO, "seeded with the first process's spend");
});

t.test('a budget that cannot be checked is a 503 gateway_config_stale', async (t) => {
  const b = await budget(t);
  b.services.spend.failure = new StoreUnavailableError('connection refused');
  const ledgerDown = await b.admit('k10');
  t.equal(ledgerDown.error?.code, 'gateway_config_stale');
  t.match(ledgerDown.error?.message, /its store is unreachable, so the spend so far cannot be read/);

  b.services.spend.failure = undefined;
  b.services.counters.admit = () => Promise.reject(new CountersUnavailableError('redis is down'));
  const countersDown = await b.admit('k10');
  t.equal(countersDown.error?.code, 'gateway_config_stale');
  t.match(countersDown.error?.message, /its counters store is unavailable/);
});

t.test(
  'budget_exceeded carries retry-after: the seconds until a daily or monthly period resets (UTC), none for a total budget',
  async (t) => {
    const b = await budget(t, Date.parse('2027-02-27T23:59:58.400Z'));
    const clock = b.services.clock;
    const at = () => new Date(clock.now()).toISOString();
    async function refusedFor(t: Test, period: string, retryAfter: number | undefined) {
      const { error } = await b.admit(period, { max_tokens: TENTH });
      t.equal(error?.code, 'budget_exceeded', `${period} at ${at()}: refused`);
      t.equal(error?.retryAfter, retryAfter, `${period} at ${at()}: retry-after ${retryAfter}`);
    }
    async function admittedFor(t: Test, period: string) {
      t.notOk((await b.admit(period, { max_tokens: TENTH })).error, `${period} at ${at()}: admitted`);
    }
    // Each budget holds one worst case of $0.10: the first request is admitted, the next refused until the period resets.
    for (const period of ['daily', 'monthly', 'total']) await admittedFor(t, period);
    await refusedFor(t, 'daily', 2);
    await refusedFor(t, 'monthly', 86_400 + 2);
    await refusedFor(t, 'total', undefined);

    clock.set(Date.parse('2027-02-27T23:59:59.999Z'));
    await refusedFor(t, 'daily', 1);
    clock.set(Date.parse('2027-02-28T00:00:00.000Z'));
    await admittedFor(t, 'daily');
    await refusedFor(t, 'daily', 86_400);
    await refusedFor(t, 'monthly', 86_400);

    clock.set(Date.parse('2027-02-28T23:59:59.000Z'));
    await refusedFor(t, 'monthly', 1);
    clock.set(Date.parse('2027-03-01T00:00:00.000Z'));
    await admittedFor(t, 'monthly');
    await admittedFor(t, 'daily');
    await refusedFor(t, 'monthly', 31 * 86_400);
    await refusedFor(t, 'total', undefined);
  },
);
