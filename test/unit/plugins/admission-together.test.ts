// rate-limit and budget listed one after the other admit together: one counters call for both plugins' checks and
// one for their settlement, in-process and in Redis (script calls counted with MONITOR). Each plugin still refuses
// in its own words and in list order: a rate limit that refuses charges no budget; a budget refusal that needs no
// counter comes after the rate limit's verdict. With another plugin between them, each admits on its own.
import t, { type Test } from 'tap';
import authPlugin from '../../../plugins/auth/index.ts';
import budgetPlugin from '../../../plugins/budget/index.ts';
import rateLimitPlugin from '../../../plugins/rate-limit/index.ts';
import { admitsWithBudget } from '../../../src/plugin-api/admission-handoff.ts';
import {
  CountersUnavailableError,
  GatewayError,
  type Counters,
  type PluginHooks,
  type Services,
  type Usage,
} from '../../../src/plugin-api/index.ts';
import { costOf } from '../../../src/platform/pricing/cost.ts';
import { RedisCounters } from '../../../src/platform/store/counters/redis-counters.ts';
import { silentLogger } from '../../../src/platform/telemetry/logger.ts';
import { roomInMinute } from '../../helpers/gateways.ts';
import { makeCtx, pluginServices, setupPlugin, type PluginServices, type TestCtx } from '../../helpers/plugin.ts';
import { commandKinds, monitorPrefix } from '../../helpers/redis-monitor.ts';
import { redisTestPrefix, REDIS_URL } from '../../helpers/redis.ts';
import { openaiDeployment } from '../../helpers/test-config.ts';
import { HELLO_PROMPT, key, NANO, PRICE, TENTH, USED } from '../../helpers/budget-fixtures.ts';

/** 12:00:20 UTC: 40 s left in the minute. */
const NOON = Date.parse('2027-01-10T12:00:20Z');

const TOGETHER = [{ use: 'auth' }, { use: 'rate-limit' }, { use: 'budget' }, { use: 'router' }];

const keyOf = (alias: string, fields: Record<string, unknown>) => ({
  alias,
  key: key(alias),
  project: 'default',
  model_groups: ['fast'],
  ...fields,
});

const CONFIG = {
  projects: [
    { id: 'default', name: 'Default' },
    { id: 'shared', name: 'Shared', rpm: 1 },
  ],
  model_groups: [
    { name: 'fast', deployments: [{ id: 'fast-mock', provider: 'mock', model: 'mock-small', price: PRICE }] },
    {
      name: 'unpriced',
      deployments: [openaiDeployment('unpriced-up', 'http://provider.invalid', { model: 'no-such-model' })],
    },
  ],
  org_units: [
    { id: 'loop-1', project: 'default', parent: 'loop-2' },
    { id: 'loop-2', project: 'default', parent: 'loop-1' },
  ],
  keys: [
    keyOf('rpm2', { rpm: 2, budget_usd: 0.15 }),
    keyOf('tpm', { tpm: 150, budget_usd: 1 }),
    keyOf('seeded', { rpm: 1, budget_usd: 1 }),
    keyOf('loop', { rpm: 1, unit: 'loop-1' }),
    keyOf('unpriced', { rpm: 1, budget_usd: 5, model_groups: ['unpriced'] }),
    keyOf('budget-only', { budget_usd: 1 }),
    keyOf('shared-a', { project: 'shared' }),
    keyOf('shared-b', { project: 'shared', budget_usd: 1 }),
  ],
};

interface Request {
  ctx: TestCtx;
  /** Plugins whose onRequest was reached, in list order. */
  reached: [string, PluginHooks][];
  error?: GatewayError;
  /** The plugin whose onRequest threw `error`. */
  by?: string;
}

interface Gate {
  services: PluginServices;
  /** The counters the plugins were given (calls to them are recorded in `calls`). */
  counters: Counters;
  /** Counters calls the plugins made, by name, since the last `take`. */
  take(): string[];
  /** Redis commands the counters sent since the last call (none in-process), once they have all run. */
  sent(): Promise<string[][]>;
  request(name: string, extra?: Record<string, unknown>): Promise<Request>;
  /** Ends a request as a provider answer with this usage, then runs onLog in reverse list order, as the runner does. */
  end(r: Request, usage?: Usage): void;
  budgetSpent(alias: string): Promise<number | null>;
  /** Seeds the key's total budget counter with nothing spent, as a first request would from an empty ledger. */
  seed(alias: string): Promise<void>;
}

/** Records each call made from outside to a counters method; calls a method makes on its own object are not. */
function recorded(counters: Counters, calls: string[]): Counters {
  return new Proxy(counters, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(prop));
        return value.apply(target, args);
      };
    },
  });
}

async function gate(t: Test, backend: 'memory' | 'redis', plugins: unknown[] = TOGETHER): Promise<Gate> {
  const services = pluginServices(t, { config: { ...CONFIG, plugins } });
  services.clock.set(NOON);
  let counters: Counters = services.counters;
  let sent = async (): Promise<string[][]> => [];
  if (backend === 'redis') {
    const prefix = redisTestPrefix(t);
    const redis = new RedisCounters({ url: REDIS_URL, prefix, log: silentLogger });
    await redis.connect();
    t.teardown(() => redis.close());
    const monitor = await monitorPrefix(t, prefix);
    sent = () => monitor.sent((mark) => redis.readMarks([mark]));
    counters = redis;
    await roomInMinute(5);
  }
  const calls: string[] = [];
  const given: Services = { ...services, counters: recorded(counters, calls) };
  const hooks: [string, PluginHooks][] = [
    ['auth', await setupPlugin(authPlugin, given)],
    ['rate-limit', await setupPlugin(rateLimitPlugin, given)],
    ['budget', await setupPlugin(budgetPlugin, given)],
  ];
  const onLog = (r: Request) => {
    for (const [, h] of [...r.reached].reverse()) h.onLog?.(r.ctx);
  };
  return {
    services,
    counters,
    take: () => calls.splice(0),
    sent,
    async request(name, extra = {}) {
      const model = name === 'unpriced' ? 'unpriced' : 'fast';
      const ctx = makeCtx({
        headers: { authorization: `Bearer ${key(name)}` },
        body: { model, messages: [{ role: 'user', content: 'Hello' }], ...extra },
        clock: services.clock,
      });
      const r: Request = { ctx, reached: [] };
      for (const [pluginName, h] of hooks) {
        r.reached.push([pluginName, h]);
        try {
          await h.onRequest?.(ctx);
        } catch (error) {
          if (!(error instanceof GatewayError)) throw error;
          Object.assign(r, { error, by: pluginName });
          ctx.error = error;
          onLog(r);
          return r;
        }
      }
      return r;
    },
    end(r, usage = USED) {
      r.ctx.attempts.push({ d: 'fast-mock', o: 'ok', ms: 1 });
      r.ctx.usage = usage;
      r.ctx.cost = costOf(usage, PRICE);
      r.ctx.source = 'upstream';
      onLog(r);
    },
    async budgetSpent(alias) {
      const [value] = await counters.readPeriods([{ key: `{p:default}:budget:key:${alias}:total`, periodId: 'total' }]);
      return value;
    },
    seed: (alias) => counters.seedPeriod(`{p:default}:budget:key:${alias}:total`, 'total', 0),
  };
}

for (const backend of ['memory', 'redis'] as const) {
  t.test(`${backend}: one counters call admits both plugins' checks, one settles both`, async (t) => {
    const g = await gate(t, backend);
    await g.seed('tpm');
    await g.sent();
    const first = await g.request('tpm', { max_tokens: TENTH });
    t.notOk(first.error);
    t.same(g.take(), ['admit'], 'one counters call for the tokens and the budget');
    const oneScript = backend === 'redis' ? ['script'] : [];
    const what = backend === 'redis' ? 'one script call to Redis' : 'in-process: no Redis';
    t.same(commandKinds(await g.sent()), oneScript, what);
    g.end(first);
    t.same(g.take(), ['settle'], "one counters call settles both; rate-limit's onLog settles nothing more");
    t.same(commandKinds(await g.sent()), oneScript, what);

    t.equal(await g.budgetSpent('tpm'), Math.round(0.029 * NANO), 'the budget settled to the real cost');
    t.same(g.services.spend.records.length, 1, 'and the spend went to the ledger');
    // 29 tokens used of 150: a request of 121 fits exactly, one more token does not (settled once, not twice).
    const fits = await g.request('tpm', { max_tokens: 150 - 29 - HELLO_PROMPT });
    t.notOk(fits.error, 'the tokens settled to the usage');
    const over = await g.request('tpm', { max_tokens: 1 });
    t.equal(over.error?.code, 'tokens_limit_exceeded');
    t.match(over.error?.message, /^Rate limit reached: key 'tpm' allows 150 tokens per minute\. Retry after \d+ s\.$/);
    t.same(over.error?.details, { scope: 'key', limit: 150, unit: 'tokens_per_minute' });
  });

  t.test(`${backend}: each plugin refuses in its own words through the joint admission`, async (t) => {
    const g = await gate(t, backend);
    const first = await g.request('rpm2', { max_tokens: TENTH });
    t.notOk(first.error, '$0.10 of $0.15');
    const overBudget = await g.request('rpm2', { max_tokens: TENTH });
    t.equal(overBudget.error?.code, 'budget_exceeded');
    t.equal(
      overBudget.error?.message,
      "Budget exceeded: key 'rpm2' has $0.05 of its total budget of $0.15 left, and this request may cost up to $0.10.",
    );
    t.same(overBudget.error?.details, { budget: 'key:rpm2:total', period: 'total', limit_usd: 0.15, spent_usd: 0.1 });
    t.equal(overBudget.error?.retryAfter, undefined);

    const small = await g.request('rpm2', { max_tokens: 20 });
    t.notOk(small.error, 'the budget refusal counted against no rate limit: this is request 2 of rpm 2');
    const spent = await g.budgetSpent('rpm2');
    const limited = await g.request('rpm2', { max_tokens: 1 });
    t.equal(limited.error?.code, 'rate_limit_exceeded');
    t.equal(limited.by, 'budget', "rate-limit's refusal, from the joint admission");
    t.match(
      limited.error?.message,
      /^Rate limit reached: key 'rpm2' allows 2 requests per minute\. Retry after \d+ s\.$/,
    );
    if (backend === 'memory') t.equal(limited.error?.retryAfter, 40, 'the whole seconds left in the minute');
    t.same(limited.error?.details, { scope: 'key', limit: 2, unit: 'requests_per_minute' });
    t.equal(await g.budgetSpent('rpm2'), spent, 'the refused request charged nothing');
  });

  t.test(`${backend}: a rate limit that refuses charges no budget, nor seeds one`, async (t) => {
    const g = await gate(t, backend);
    t.notOk((await g.request('shared-a')).error, "the project's one request a minute");
    g.take();
    const refused = await g.request('shared-b', { max_tokens: TENTH });
    t.equal(refused.error?.code, 'rate_limit_exceeded');
    t.match(refused.error?.message, /project 'shared' allows 1 requests per minute/);
    t.same(g.take(), ['admit'], 'refused in the one call, before the budget counter was looked for');
    const [counter] = await g.counters.readPeriods([
      { key: '{p:shared}:budget:key:shared-b:total', periodId: 'total' },
    ]);
    t.equal(counter, null, 'the budget counter was neither charged nor seeded');
    g.end(refused);
    t.same(g.services.spend.records, [], 'nothing reached the ledger');
  });

  t.test(`${backend}: an unseeded budget is seeded from the ledger, then both are admitted once`, async (t) => {
    const g = await gate(t, backend);
    g.services.spend.earlier.set('key:seeded:total|total', 0.85 * NANO);
    const first = await g.request('seeded', { max_tokens: TENTH });
    t.notOk(first.error, '$0.85 + $0.10 fits, and rpm 1 was not used up by the unseeded round');
    t.same(g.take(), ['admit', 'seedPeriod', 'admit']);
    t.equal(await g.budgetSpent('seeded'), 0.95 * NANO, 'seeded with the earlier spend, then charged');
    const second = await g.request('seeded', { max_tokens: 1 });
    t.equal(second.error?.code, 'rate_limit_exceeded', 'the request counted once');
  });

  t.test(`${backend}: a budget refusal that needs no counter comes after the rate limit's verdict`, async (t) => {
    const g = await gate(t, backend);
    for (const [name, code] of [
      ['loop', 'budget_config_invalid'],
      ['unpriced', 'budget_unpriced_model'],
    ]) {
      const first = await g.request(name);
      t.equal(first.error?.code, code, `${name}: the budget's own refusal`);
      t.same(g.take(), ['admit', 'settle'], `${name}: the rate limit was asked first; the end settles its part`);
      const second = await g.request(name);
      t.equal(second.error?.code, 'rate_limit_exceeded', `${name}: then the rate limit, which counted the first`);
      t.same(g.take(), ['admit'], `${name}: refused in one call`);
    }
  });
}

t.test('counters unreachable: the rate limit speaks when it has checks, else the budget', async (t) => {
  const g = await gate(t, 'memory');
  g.counters.admit = () => Promise.reject(new CountersUnavailableError('redis is down'));
  const limited = await g.request('rpm2');
  t.equal(limited.error?.code, 'gateway_config_stale');
  t.equal(
    limited.error?.message,
    'The gateway cannot enforce its rate limits: its counters store is unavailable. Retry shortly.',
  );
  const budgeted = await g.request('budget-only');
  t.equal(budgeted.error?.code, 'gateway_config_stale');
  t.match(budgeted.error?.message, /cannot enforce its budgets: its counters store is unavailable/);
});

t.test('with a plugin between them, each admits on its own, as before', async (t) => {
  const g = await gate(t, 'memory', [
    { use: 'auth' },
    { use: 'rate-limit' },
    { use: './between.mjs' },
    { use: 'budget' },
    { use: 'router' },
  ]);
  await g.seed('rpm2');
  t.notOk((await g.request('rpm2', { max_tokens: TENTH })).error);
  t.same(g.take(), ['admitMinute', 'admit'], 'one call each');
  t.equal((await g.request('rpm2', { max_tokens: TENTH })).error?.code, 'budget_exceeded');
  const limited = await g.request('rpm2', { max_tokens: 20 });
  t.equal(limited.error?.code, 'rate_limit_exceeded', 'the request the budget refused was counted by rate-limit');
  t.equal(limited.by, 'rate-limit');
});

t.test('rate-limit hands off only to a budget listed right after it, each listed once', async (t) => {
  const uses = (...names: string[]) => names.map((use) => ({ use }));
  t.ok(admitsWithBudget(uses('auth', 'rate-limit', 'budget', 'router')));
  t.notOk(admitsWithBudget(uses('auth', 'budget', 'rate-limit', 'router')), 'budget first');
  t.notOk(admitsWithBudget(uses('auth', 'rate-limit', 'guardrails', 'budget', 'router')), 'a plugin between');
  t.notOk(admitsWithBudget(uses('auth', 'rate-limit', 'router')), 'no budget');
  t.notOk(admitsWithBudget(uses('rate-limit', 'budget', 'rate-limit', 'router')), 'rate-limit twice');
});
