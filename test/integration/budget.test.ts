// budget on the wire, with two gateway processes sharing Redis and one PostgreSQL database: worst-case reservations
// never overshoot across processes, each budget of the chain refuses in its own words in the OpenAI envelope and
// retry-after, the spend ledger's rows, traces of soft overruns and unpriced refusals, and settlement of streams
// (also after the client left). The plugin's decisions (worst case, settlement, seeding from the ledger, retry-after
// at period resets on a fake clock) are tested on the plugin in test/unit/plugins/budget.test.ts.
import t, { type Test } from 'tap';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { ledgerSpend } from '../helpers/budget-fixtures.ts';
import { startFakeOpenAI } from '../helpers/fake-openai.ts';
import { startGateways } from '../helpers/gateways.ts';
import { baseConfig, chatBody, openaiDeployment } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

const key = (name: string) => `sk-test-${name}-0123456789abcdef`;
/** One token costs $0.001 in and out, so costs read as token counts. */
const PRICE = { input_per_mtok: 1000, output_per_mtok: 1000 };
/** Prompt estimate of chatBody()'s one "Hello" message. */
const HELLO_PROMPT = 9;
/** max_tokens that makes the worst case of a "Hello" request exactly 100 tokens: $0.10. */
const TENTH = 100 - HELLO_PROMPT;
const NANO = 1e9;

/** The model group each test key asks for unless a test names another. */
const GROUP_OF: Record<string, string> = {
  'unit-key': 'fast',
  'agent-key': 'fast',
  'soft-key': 'fast',
  'unpriced-key': 'unpriced',
  'ghost-unit': 'fast',
  'loop-key': 'fast',
  'stream-key': 'up',
  free: 'unpriced',
};

function chat(
  url: string,
  name: string,
  extra: Record<string, unknown> = {},
  init: RequestInit = {},
): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key(name)}` },
    body: JSON.stringify(chatBody({ model: GROUP_OF[name] ?? 'demo', ...extra })),
    ...init,
  });
}

/** Longest a period can still run: a day, or 31 days. */
const PERIOD_SECONDS = { daily: 86_400, monthly: 31 * 86_400 } as const;

async function checkBudgetExceeded(
  t: Test,
  res: Response,
  label: RegExp,
  period: 'total' | 'daily' | 'monthly',
): Promise<void> {
  t.equal(res.status, 429);
  const body = await res.json();
  t.same(body, {
    error: { message: body.error.message, type: 'rate_limit_error', param: null, code: 'budget_exceeded' },
  });
  t.match(body.error.message, label, 'the message names the budget');
  const retryAfter = res.headers.get('retry-after');
  if (period === 'total') t.equal(retryAfter, null, 'no retry-after: waiting does not refill a total budget');
  else
    t.ok(
      /^\d+$/.test(retryAfter ?? '') && Number(retryAfter) >= 1 && Number(retryAfter) <= PERIOD_SECONDS[period],
      `retry-after within the ${period} period (${retryAfter})`,
    );
}

function config(upUrl: string, extra: Record<string, any> = {}) {
  return baseConfig({
    projects: [
      { id: 'default', name: 'Default' },
      { id: 'soft-proj', name: 'Soft', budgets: [{ usd: 0.01, period: 'monthly', mode: 'soft' }] },
      { id: 'capped', name: 'Capped', budgets: [{ usd: 0.3, period: 'monthly' }] },
    ],
    model_groups: [
      {
        name: 'demo',
        deployments: [
          { id: 'demo-mock', provider: 'mock', model: 'mock-small', price: PRICE, mock: { latency_ms: 150 } },
        ],
      },
      { name: 'fast', deployments: [{ id: 'fast-mock', provider: 'mock', model: 'mock-small', price: PRICE }] },
      // Answers after every request of a concurrent burst has been admitted, even on a loaded machine.
      {
        name: 'held',
        deployments: [
          { id: 'held-mock', provider: 'mock', model: 'mock-small', price: PRICE, mock: { latency_ms: 3000 } },
        ],
      },
      { name: 'unpriced', deployments: [openaiDeployment('unpriced-up', upUrl, { model: 'no-such-model' })] },
      { name: 'up', deployments: [openaiDeployment('priced-up', upUrl, { price: PRICE })] },
      { name: 'gpt', deployments: [openaiDeployment('gpt-up', upUrl, { model: 'gpt-4o-mini-2024-07-18' })] },
    ],
    agents: [{ id: 'bot', project: 'default', name: 'bot', budgets: [{ usd: 0.05, period: 'monthly' }] }],
    org_units: [
      { id: 'eng', project: 'default', budgets: [{ usd: 0.25, period: 'daily' }] },
      { id: 'team-a', project: 'default', parent: 'eng', budgets: [{ usd: 100, period: 'monthly', mode: 'soft' }] },
      { id: 'loop-1', project: 'default', parent: 'loop-2' },
      { id: 'loop-2', project: 'default', parent: 'loop-1' },
    ],
    keys: [
      { alias: 'k10', key: key('k10'), project: 'default', model_groups: ['demo', 'fast', 'held'], budget_usd: 1 },
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
      { alias: 'stream-key', key: key('stream-key'), project: 'default', model_groups: ['up'], budget_usd: 2 },
      { alias: 'capped-key', key: key('capped-key'), project: 'capped', model_groups: ['demo'] },
      { alias: 'free', key: key('free'), project: 'default', model_groups: ['unpriced'] },
    ],
    plugins: [{ use: 'auth' }, { use: 'budget' }, { use: 'router' }, { use: 'tracing' }],
    ...extra,
  });
}

t.test('two gateway processes sharing Redis', async (t) => {
  const up = await startFakeOpenAI();
  t.teardown(() => up.close());
  const gw = await startGateways(t, 'redis', config(up.url));
  const db = gw.service.db;
  const [a, b = a] = gw.urls;
  const at = (i: number) => gw.urls[i % gw.urls.length];

  t.test('50 concurrent requests against a budget that fits 10 worst cases: 10 pass, never an overshoot', async (t) => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => chat(at(i), 'k10', { model: 'held', max_tokens: TENTH })),
    );
    const passed = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    t.equal(passed.length, 10, 'exactly ten reservations of $0.10 fit in $1');
    t.equal(refused.length, 40);
    await checkBudgetExceeded(
      t,
      refused[0],
      /key 'k10' has \$0\.\d+ of its total budget of \$1\.00 left, and this request may cost up to \$0\.10/,
      'total',
    );
    await Promise.all(refused.slice(1).map((r) => r.arrayBuffer()));
    const perRequest = (await passed[0].json()).usage.total_tokens * 0.001;
    await Promise.all(passed.slice(1).map((r) => r.arrayBuffer()));
    const settled = await waitFor('ten requests in the ledger', async () => {
      const l = await ledgerSpend(db, 'key:k10:total');
      return l.requests === 10 && l;
    });
    t.equal(settled.nano, Math.round(10 * perRequest * NANO), 'the ledger holds the real cost of the ten');

    // Then one at a time (no latency needed now) until refused: admitted while spent + $0.10 <= $1.
    let served = 0;
    for (;;) {
      const res = await chat(at(served), 'k10', { model: 'fast', max_tokens: TENTH });
      if (res.status !== 200) {
        await checkBudgetExceeded(t, res, /key 'k10'/, 'total');
        break;
      }
      await res.arrayBuffer();
      served++;
      await waitFor('settled', async () => (await ledgerSpend(db, 'key:k10:total')).requests === 10 + served);
      if (served > 100) throw new Error('never refused');
    }
    const total = await ledgerSpend(db, 'key:k10:total');
    t.equal(served, Math.floor((1 - 0.1 - 10 * perRequest) / perRequest + 1e-9) + 1, 'as many as fit');
    t.ok(total.nano <= NANO, `spent ${total.nano / NANO} <= $1: no overshoot`);
    t.ok(total.nano > NANO - 0.1 * NANO - perRequest * NANO, 'and the budget was used up to the last worst case');
    const counter = await gw.service.counters.readPeriods([
      { key: '{p:default}:budget:key:k10:total', periodId: 'total' },
    ]);
    t.same(counter, [total.nano], 'the hot counter equals the ledger once everything settled');
  });

  t.test('the chain: a unit ancestor, an agent, and the project; each names itself when it refuses', async (t) => {
    // eng: $0.25 a day, hard. Each request reserves $0.10 and really costs the mock's usage.
    let served = 0;
    let perRequest = 0;
    for (;;) {
      const res = await chat(at(served), 'unit-key', { max_tokens: TENTH });
      if (res.status !== 200) {
        await checkBudgetExceeded(t, res, /unit 'eng' has \$0\.\d+ of its daily budget of \$0\.25 left/, 'daily');
        break;
      }
      perRequest = (await res.json()).usage.total_tokens * 0.001;
      served++;
      await waitFor('settled', async () => (await ledgerSpend(db, 'unit:eng:daily')).requests === served);
      if (served > 50) throw new Error('never refused');
    }
    t.equal(served, Math.floor((0.25 - 0.1) / perRequest + 1e-9) + 1);
    const day = `d${Math.floor(Date.now() / 86_400_000)}`;
    const soft = await waitFor('the soft unit budget recorded too', async () => {
      const l = await ledgerSpend(db, 'unit:team-a:monthly:soft');
      return l.requests === served && l;
    });
    t.equal(soft.nano, (await ledgerSpend(db, 'unit:eng:daily')).nano, 'the soft budget of team-a saw the same spend');
    const rows = await db.query<{ period_id: string }>(
      "SELECT DISTINCT period_id FROM budget_spend WHERE budget_id = 'unit:eng:daily'",
    );
    t.same(
      rows.rows.map((r) => r.period_id),
      [day],
      'daily spend is kept per UTC day',
    );

    await checkBudgetExceeded(
      t,
      await chat(a, 'agent-key', { max_tokens: TENTH }),
      /agent 'bot' has \$0\.05 of its monthly budget of \$0\.05 left/,
      'monthly',
    );
    t.equal(
      (await chat(b, 'agent-key', { max_tokens: 20 })).status,
      200,
      'a request whose worst case fits the agent budget passes',
    );

    // The project 'capped' ($0.30): three worst cases of $0.10 fit, the fourth does not, in any order.
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => chat(at(i), 'capped-key', { max_tokens: TENTH })),
    );
    t.same(results.map((r) => r.status).sort(), [200, 200, 200, 429]);
    await checkBudgetExceeded(
      t,
      results.find((r) => r.status === 429)!,
      /project 'capped'/,
      'monthly',
    );
  });

  t.test('soft budgets never refuse; the overrun is noted in the trace', async (t) => {
    const res = await chat(a, 'soft-key', { model: 'fast' });
    t.equal(res.status, 200);
    const id = res.headers.get('x-svc-request-id')!;
    const trace = await waitFor('trace', () => getTrace(db, 'soft-proj', id));
    t.same(trace.metadata['gateway.budget_soft_exceeded'], ['project:soft-proj:monthly:soft']);
    t.equal(
      (await chat(b, 'soft-key', { model: 'unpriced' })).status,
      200,
      'an unpriced model is no problem for a soft budget',
    );
  });

  t.test('409 budget_unpriced_model when a hard budget applies and the model has no price', async (t) => {
    const upstreamCalls = up.requests.length;
    const res = await chat(a, 'unpriced-key', { model: 'unpriced' });
    t.equal(res.status, 409);
    const body = await res.json();
    t.match(body, { error: { type: 'invalid_request_error', param: null, code: 'budget_unpriced_model' } });
    t.match(
      body.error.message,
      /No price is known for model 'no-such-model' \(deployment 'unpriced-up'\), and key 'unpriced-key' has a hard budget/,
    );
    const trace = await waitFor('trace', () => getTrace(db, 'default', res.headers.get('x-svc-request-id')!));
    t.match(
      trace,
      { status: 'error', statusCode: 409, errorCode: 'budget_unpriced_model', tokens: 0, cost: 0 },
      'traced with zero usage',
    );
    t.equal(up.requests.length, upstreamCalls, 'no provider was called');
    t.equal((await chat(b, 'free', { model: 'unpriced' })).status, 200, 'without a budget an unpriced model is served');
    // A model in the built-in price table needs no price in gateway.yaml.
    const priced = await chat(a, 'unpriced-key', { model: 'gpt' });
    t.equal(priced.status, 200);
    t.equal(
      priced.headers.get('x-svc-cost'),
      String((10 * 0.15 + 5 * 0.6) / 1e6),
      'costed at the built-in gpt-4o-mini price',
    );
  });

  t.test('503 budget_config_invalid when the unit chain cannot be built', async (t) => {
    for (const [name, reason] of [
      ['ghost-unit', /unknown organization unit 'ghost'/],
      ['loop-key', /organization units form a cycle/],
    ] as const) {
      const res = await chat(at(name.length), name);
      t.equal(res.status, 503);
      const body = await res.json();
      t.match(body, { error: { type: 'server_error', code: 'budget_config_invalid' } });
      t.match(body.error.message, reason);
    }
  });

  t.test('settlement: streamed, a client that leaves mid-stream, and a failed request', async (t) => {
    const before = (await ledgerSpend(db, 'key:stream-key:total')).nano;
    const streamed = await chat(a, 'stream-key', { stream: true, max_tokens: 100 });
    t.equal(streamed.status, 200);
    t.equal(streamed.headers.get('x-svc-cost-estimated'), 'true');
    await streamed.text();
    const after1 = await waitFor('stream settled', async () => {
      const l = await ledgerSpend(db, 'key:stream-key:total');
      return l.requests === 1 && l;
    });
    // The fake upstream's stream usage: 12 prompt tokens, one completion token per piece (3 pieces).
    t.equal(
      after1.nano - before,
      Math.round(15 * 0.001 * NANO),
      'a stream is charged its real usage, not the estimate',
    );

    const pieces = Array.from({ length: 20 }, (_, i) => `w${i} `);
    up.queue.push({ type: 'stream', pieces, gapMs: 15 });
    const controller = new AbortController();
    const leaving = await chat(b, 'stream-key', { stream: true, max_tokens: 100 }, { signal: controller.signal });
    const reader = leaving.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.cancel().catch(() => {});
    const after2 = await waitFor('disconnect settled', async () => {
      const l = await ledgerSpend(db, 'key:stream-key:total');
      return l.requests === 2 && l;
    });
    t.equal(
      after2.nano - after1.nano,
      Math.round((12 + pieces.length) * 0.001 * NANO),
      'the gateway read the usage after the client left',
    );

    up.queue.push({
      type: 'error',
      status: 400,
      envelope: { error: { message: 'bad', type: 'invalid_request_error', param: null, code: 'bad' } },
    });
    const failed = await chat(a, 'stream-key', { max_tokens: 100 });
    t.equal(failed.status, 400);
    const counterKey = [{ key: '{p:default}:budget:key:stream-key:total', periodId: 'total' }];
    // That it records nothing in the ledger: test/unit/plugins/budget.test.ts.
    const counter = await waitFor('the reservation of a failed request given back', async () => {
      const [value] = await gw.service.counters.readPeriods(counterKey);
      return value === after2.nano && value;
    });
    t.equal(counter, after2.nano, 'a failed request costs nothing: its reservation was given back');
  });
});
