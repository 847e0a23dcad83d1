// The router plugin called directly: which deployment is tried, when it retries, how long it backs off (a fake clock),
// what it benches, when it falls back, and the attempt records; providers are fakes injected through services.
import t, { type Test } from 'tap';
import routerPlugin from '../../../plugins/router/index.ts';
import { backoffDelay } from '../../../plugins/router/backoff.ts';
import { weightedChoice } from '../../../plugins/router/weighted-choice.ts';
import {
  CountersUnavailableError,
  GatewayError,
  UpstreamError,
  type AttemptRecord,
  type ChatChunk,
  type Counters,
  type DeploymentConfig,
  type GatewayResponse,
} from '../../../src/plugin-api/index.ts';
import { retryAfterMs } from '../../../src/plugin-api/errors.ts';
import { fakeProviders, httpError, usage, type FakeProviders } from '../../helpers/fake-providers.ts';
import { makeCtx, pluginServices, setupPlugin, type PluginServices, type TestCtx } from '../../helpers/plugin.ts';
import { openaiDeployment, TEST_KEY } from '../../helpers/test-config.ts';

const deployment = (id: string, extra: Record<string, unknown> = {}) =>
  openaiDeployment(id, 'http://provider.invalid', { price: { input_per_mtok: 1, output_per_mtok: 2 }, ...extra });

interface Sent {
  ctx: TestCtx;
  response?: GatewayResponse;
  error?: unknown;
}

interface Router {
  services: PluginServices;
  providers: FakeProviders;
  send(group: string, extra?: Record<string, unknown>, route?: 'chat' | 'embeddings'): Promise<Sent>;
}

async function router(
  t: Test,
  groups: Record<string, unknown>[],
  config: Record<string, unknown> = {},
): Promise<Router> {
  const providers = fakeProviders();
  const names = groups.map((g) => g.name as string);
  const services = pluginServices(t, {
    config: {
      model_groups: groups.map((g) => ({ created_at: '2026-11-21T00:00:00Z', ...g })),
      keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: names }],
    },
    providers,
  });
  const hooks = await setupPlugin(routerPlugin, services, config);
  return {
    services,
    providers,
    async send(group, extra = {}, route = 'chat') {
      const body =
        route === 'embeddings'
          ? { model: group, input: 'hello', ...extra }
          : { model: group, messages: [{ role: 'user', content: 'Hello' }], ...extra };
      const ctx = makeCtx({ route, body, clock: services.clock });
      ctx.group = services.modelGroups.get(group);
      try {
        return { ctx, response: await hooks.handle!(ctx) };
      } catch (error) {
        return { ctx, error };
      }
    },
  };
}

/** The attempt records as x-svc-attempts carries them (without the trace's startedAt). */
const records = (ctx: TestCtx) => ctx.attempts.map(({ startedAt: _, ...r }: AttemptRecord) => r);
const benchedIds = async (r: Router, group: string) =>
  [...(await r.services.bench.benched(r.services.modelGroups.get(group)!)).keys()].sort();

t.test('retryable outcomes move on at once to an untried deployment: no backoff', async (t) => {
  const r = await router(
    t,
    [
      {
        name: 'g',
        routing: { retries: 2, bench_ms: 0, max_backoff_ms: 5000 },
        deployments: [deployment('a'), deployment('b')],
      },
    ],
    { backoff_base_ms: 5000 },
  );
  const failures: [string, UpstreamError][] = [
    ...[500, 502, 503, 529, 429, 408, 409].map((s): [string, UpstreamError] => [`${s}`, httpError(s)]),
    ['connect', new UpstreamError('connect', 'cannot reach provider')],
    ['timeout', new UpstreamError('timeout', 'provider did not answer in time')],
  ];
  for (const [label, failure] of failures) {
    const before = r.providers.calls.length;
    r.providers.next({ fail: failure });
    const { ctx, response } = await r.send('g');
    t.equal(response?.kind, 'json', `${label}: served`);
    const attempts = records(ctx);
    t.equal(attempts.length, 2, `${label}: two attempts`);
    t.match(attempts[0], { o: label === 'timeout' ? 'timeout' : 'retryable', why: failure.message });
    t.equal(attempts[0].st, failure.status, `${label}: the provider status, when there was one`);
    t.match(attempts[1], { o: 'ok' });
    t.not(attempts[0].d, attempts[1].d, `${label}: the second attempt used the other deployment`);
    t.equal(ctx.deployment, attempts[1].d, `${label}: x-svc-deployment names the one that served`);
    t.same(
      r.providers.calls.slice(before).map((c) => c.deployment),
      [attempts[0].d, attempts[1].d],
    );
  }
  t.same(r.services.clock.slept, [], 'never waited before an untried deployment');
});

t.test('401, 403, 404 and an invalid 2xx body fail that deployment and move on to another', async (t) => {
  const r = await router(t, [
    { name: 'g', routing: { retries: 2, bench_ms: 0 }, deployments: [deployment('a'), deployment('b')] },
  ]);
  const failures = [401, 403, 404].map((s) => httpError(s));
  failures.push(
    new UpstreamError('invalid_response', 'provider answered with a body that is not JSON', { status: 200 }),
  );
  for (const failure of failures) {
    r.providers.next({ fail: failure });
    const { ctx, response } = await r.send('g');
    t.ok(response, `${failure.message}: served by the other deployment`);
    const attempts = records(ctx);
    t.match(attempts, [{ o: 'failed', st: failure.status, why: failure.message }, { o: 'ok' }]);
    t.not(attempts[0].d, attempts[1].d);
  }
});

t.test('other 4xx statuses stop at once: the provider error is the answer, not retried', async (t) => {
  const r = await router(t, [{ name: 'g', routing: { retries: 3 }, deployments: [deployment('a'), deployment('b')] }]);
  for (const status of [400, 422]) {
    const before = r.providers.calls.length;
    r.providers.next({ fail: httpError(status) });
    const { ctx, error } = await r.send('g', { temperature: 7 });
    t.ok(error instanceof UpstreamError && error.status === status, `${status}: the provider's error`);
    t.equal(r.providers.calls.length - before, 1, `${status}: not retried`);
    t.equal(r.providers.calls.at(-1)!.call.body.temperature, 7, 'the client field reached the provider');
    t.match(records(ctx), [{ o: 'failed', st: status, why: `fake error ${status}` }]);
    t.equal(records(ctx).length, 1);
    t.equal(ctx.servedGroup, 'g');
    t.equal(ctx.annotations['gateway.refusal'], undefined, 'not an exhausted group: the provider refused it');
  }
});

t.test('health signals bench a deployment; 403, other 4xx and invalid bodies do not', async (t) => {
  const cases: [UpstreamError, boolean][] = [
    [httpError(500), true],
    [httpError(429), true],
    [httpError(401), true],
    [httpError(404), true],
    [new UpstreamError('connect', 'connection reset'), true],
    [new UpstreamError('timeout', 'provider did not answer in time'), true],
    [httpError(403), false],
    [httpError(400), false],
    [new UpstreamError('invalid_response', 'not JSON', { status: 200 }), false],
  ];
  for (const [failure, benches] of cases) {
    const r = await router(t, [
      { name: 'g', routing: { retries: 2, bench_ms: 60_000 }, deployments: [deployment('a'), deployment('b')] },
    ]);
    r.providers.next({ fail: failure });
    const { ctx } = await r.send('g');
    const first = ctx.attempts[0].d;
    t.same(
      await benchedIds(r, 'g'),
      benches ? [first] : [],
      `${failure.kind} ${failure.status ?? ''}: benched=${benches}`,
    );
  }
});

t.test('the provider retry hint: parsed from retry-after-ms, retry-after seconds or an HTTP date', async (t) => {
  const now = Date.parse('2027-01-01T00:00:00Z');
  t.equal(retryAfterMs({ 'retry-after-ms': '120' }, now), 120);
  t.equal(retryAfterMs({ 'retry-after-ms': '120', 'retry-after': '30' }, now), 120, 'the ms header wins');
  t.equal(retryAfterMs({ 'retry-after': '30' }, now), 30_000);
  t.equal(retryAfterMs({ 'retry-after': 'Fri, 01 Jan 2027 00:00:07 GMT' }, now), 7_000);
  t.equal(retryAfterMs({}, now), undefined);
});

t.test('before retrying a deployment already tried it waits for retry-after, capped by max_backoff_ms', async (t) => {
  const r = await router(
    t,
    [
      { name: 'hinted', routing: { retries: 1, max_backoff_ms: 1000 }, deployments: [deployment('only')] },
      { name: 'capped', routing: { retries: 1, max_backoff_ms: 100 }, deployments: [deployment('capped-only')] },
    ],
    { backoff_base_ms: 1 },
  );
  r.providers.script('only', { fail: httpError(429, 120) });
  const hinted = await r.send('hinted');
  t.ok(hinted.response, 'served by the retry');
  t.same(r.services.clock.slept, [120], 'waited the 120 ms the provider asked for');
  t.match(records(hinted.ctx), [
    { d: 'only', o: 'retryable', st: 429 },
    { d: 'only', o: 'ok' },
  ]);
  t.equal(r.providers.calls.length, 2, 'the first call and the retry');

  r.providers.script('capped-only', { fail: httpError(503, 30_000) });
  const capped = await r.send('capped');
  t.ok(capped.response);
  t.same(r.services.clock.slept, [120, 100], 'the 30 s hint was capped at max_backoff_ms');
});

t.test('without a hint the backoff doubles from backoff_base_ms with jitter, capped by max_backoff_ms', async (t) => {
  t.equal(
    backoffDelay(0, 100, undefined, 2000, () => 0),
    50,
    'jitter over the upper half: at least half',
  );
  t.equal(
    backoffDelay(0, 100, undefined, 2000, () => 1),
    100,
  );
  t.equal(
    backoffDelay(3, 100, undefined, 2000, () => 1),
    800,
    'doubles per step',
  );
  t.equal(
    backoffDelay(6, 100, undefined, 2000, () => 1),
    2000,
    'capped',
  );
  t.equal(
    backoffDelay(0, 100, 700, 2000, () => 1),
    700,
    'a longer hint wins',
  );
  t.equal(
    backoffDelay(0, 100, 5000, 2000, () => 1),
    2000,
    'and is capped too',
  );

  const envelope = httpError(503);
  const r = await router(
    t,
    [{ name: 'g', routing: { retries: 3, max_backoff_ms: 300 }, deployments: [deployment('only')] }],
    { backoff_base_ms: 100 },
  );
  r.providers.script('only', { fail: envelope }, { fail: envelope }, { fail: envelope }, { fail: envelope });
  const { ctx, error } = await r.send('g');
  t.equal(error, envelope, 'when retries are exhausted the last provider error is the answer');
  const [a, b, c] = r.services.clock.slept;
  t.equal(r.services.clock.slept.length, 3, 'a wait before each retry');
  t.ok(a >= 50 && a <= 100, `first wait ${a}`);
  t.ok(b >= 100 && b <= 200, `second wait ${b}`);
  t.ok(c >= 200 && c <= 300, `third wait ${c}, capped at 300`);
  t.match(
    records(ctx),
    Array.from({ length: 4 }, () => ({ d: 'only', o: 'retryable', st: 503 })),
  );
  t.equal(ctx.annotations['gateway.refusal'], 'all_deployments_failed');
  t.equal(ctx.servedGroup, 'g');
  t.equal(ctx.cost, undefined, 'no cost on a failure');
});

t.test('a request whose client left is not retried', async (t) => {
  const r = await router(t, [
    { name: 'g', routing: { retries: 2, bench_ms: 0 }, deployments: [deployment('a'), deployment('b')] },
  ]);
  const ctx = makeCtx({ clock: r.services.clock });
  ctx.group = r.services.modelGroups.get('g');
  r.providers.next({ fail: httpError(503), effect: () => ctx.leave() });
  const hooks = await setupPlugin(routerPlugin, r.services);
  await t.rejects(hooks.handle!(ctx), /client disconnected/);
  t.equal(r.providers.calls.length, 1, 'the attempt under way when the client left was the last');
});

t.test("the attempt's timeout: the deployment's timeout_ms, else the group's", async (t) => {
  const r = await router(t, [
    { name: 'g', routing: { retries: 0, timeout_ms: 30 }, deployments: [deployment('patient', { timeout_ms: 2000 })] },
    { name: 'h', routing: { retries: 0, timeout_ms: 30 }, deployments: [deployment('hasty')] },
  ]);
  await r.send('g');
  await r.send('h');
  t.same(
    r.providers.calls.map((c) => [c.deployment, c.call.timeoutMs]),
    [
      ['patient', 2000],
      ['hasty', 30],
    ],
  );
  t.equal(r.providers.calls[0].call.signal, undefined, 'a non-streamed call is bounded by the transport alone');
});

t.test('the fallback group is used after the retries are exhausted', async (t) => {
  const r = await router(
    t,
    [
      {
        name: 'primary',
        fallback: 'backup',
        routing: { retries: 1, bench_ms: 0, max_backoff_ms: 10 },
        deployments: [deployment('p1')],
      },
      { name: 'backup', routing: { retries: 0 }, deployments: [deployment('b1')] },
    ],
    { backoff_base_ms: 1 },
  );
  r.providers.script('p1', { fail: httpError(503) }, { fail: httpError(503) });
  const served = await r.send('primary');
  t.ok(served.response);
  t.equal(served.ctx.servedGroup, 'backup', 'x-svc-model-group names the fallback');
  t.equal(served.ctx.deployment, 'b1');
  t.match(records(served.ctx), [
    { d: 'p1', o: 'retryable', st: 503 },
    { d: 'p1', o: 'retryable', st: 503 },
    { d: 'b1', o: 'ok' },
  ]);
  t.same(
    r.providers.calls.map((c) => c.deployment),
    ['p1', 'p1', 'b1'],
  );

  r.providers.script('p1', { fail: httpError(500) }, { fail: httpError(500) });
  const last = httpError(429, 7000);
  r.providers.script('b1', { fail: last });
  const failed = await r.send('primary');
  t.equal(failed.error, last, 'when the fallback fails too, its last error is the answer');
  t.equal(failed.ctx.servedGroup, 'backup');
  t.match(records(failed.ctx), [{ d: 'p1' }, { d: 'p1' }, { d: 'b1', o: 'retryable', st: 429 }]);
});

t.test('a benched deployment gets no traffic for bench_ms, then returns', async (t) => {
  const r = await router(t, [
    { name: 'g', routing: { retries: 1, bench_ms: 250 }, deployments: [deployment('a'), deployment('b')] },
  ]);
  r.providers.next({ fail: httpError(500) });
  const first = await r.send('g');
  t.ok(first.response);
  const [failed, ok] = records(first.ctx);
  t.match([failed, ok], [{ o: 'retryable', st: 500 }, { o: 'ok' }]);
  const sick = failed.d;
  const healthy = ok.d;
  t.same(await benchedIds(r, 'g'), [sick], 'benched in the counters store, where every replica reads it');

  const seen = new Set<string>();
  for (let i = 0; i < 12; i++) {
    const { ctx } = await r.send('g');
    seen.add(ctx.deployment!);
    t.equal(ctx.attempts.length, 1);
  }
  t.same([...seen], [healthy], 'only the healthy deployment served while the other was benched');

  r.services.clock.advance(249);
  t.same(await benchedIds(r, 'g'), [sick], 'still benched 1 ms before bench_ms ends');
  r.services.clock.advance(1);
  t.same(await benchedIds(r, 'g'), [], 'the bench expired');
  let back = false;
  for (let i = 0; i < 40 && !back; i++) back = (await r.send('g')).ctx.deployment === sick;
  t.ok(back, 'the benched deployment takes traffic again after bench_ms');
});

t.test('the last unbenched deployment of a group without fallback is never benched', async (t) => {
  const r = await router(t, [
    { name: 'g', routing: { retries: 1, bench_ms: 60_000 }, deployments: [deployment('a'), deployment('b')] },
  ]);
  r.providers.next({ fail: httpError(500) }, { fail: httpError(500) });
  const { ctx, error } = await r.send('g');
  t.ok(error instanceof UpstreamError && error.status === 500);
  t.equal(ctx.attempts.length, 2);
  t.same(await benchedIds(r, 'g'), [ctx.attempts[0].d], 'only the first failing deployment is benched');
  // The next request still reaches the provider rather than getting a 503.
  const next = await r.send('g');
  t.ok(next.response);
  t.equal(next.ctx.deployment, ctx.attempts[1].d);
});

t.test('a fully benched group records benched attempts and falls back; with no fallback left: 503', async (t) => {
  const r = await router(t, [
    {
      name: 'primary',
      fallback: 'spare',
      routing: { retries: 2, bench_ms: 60_000 },
      deployments: [deployment('p1'), deployment('p2')],
    },
    { name: 'spare', deployments: [deployment('s1')] },
    {
      name: 'lonely',
      fallback: 'keyless',
      routing: { retries: 2, bench_ms: 60_000 },
      deployments: [deployment('l1'), deployment('l2')],
    },
    // Out of rotation: a deployment without api_key.
    { name: 'keyless', deployments: [deployment('k1', { api_key: '' })] },
  ]);
  r.providers.script('p1', { fail: httpError(500) });
  r.providers.script('p2', { fail: httpError(500) });
  const first = await r.send('primary');
  t.ok(first.response, 'the spare group served after both primaries failed');
  t.same(
    first.ctx.attempts.map((a) => a.o),
    ['retryable', 'retryable', 'ok'],
  );
  t.same(first.ctx.attempts.map((a) => a.d).sort(), ['p1', 'p2', 's1']);

  const second = await r.send('primary');
  t.ok(second.response);
  t.equal(second.ctx.servedGroup, 'spare');
  t.same(
    records(second.ctx)
      .slice(0, 2)
      .sort((x, y) => x.d.localeCompare(y.d)),
    [
      { d: 'p1', o: 'benched', ms: 0 },
      { d: 'p2', o: 'benched', ms: 0 },
    ],
  );
  t.match(records(second.ctx)[2], { d: 's1', o: 'ok' });
  t.equal(
    r.providers.calls.filter((c) => c.deployment.startsWith('p')).length,
    2,
    'benched deployments were not called',
  );

  r.providers.script('l1', { fail: httpError(500) });
  r.providers.script('l2', { fail: httpError(500) });
  const exhausted = await r.send('lonely');
  t.ok(exhausted.error instanceof UpstreamError, 'the last provider error when nothing else is left');
  t.equal(exhausted.ctx.attempts.length, 2);
  t.equal(exhausted.ctx.servedGroup, 'lonely', 'the keyless group made no attempt, so it did not serve');
  const calls = r.providers.calls.length;
  const refused = await r.send('lonely');
  t.ok(refused.error instanceof GatewayError && refused.error.code === 'no_deployment_available');
  t.equal(refused.ctx.servedGroup, 'lonely');
  t.same(
    records(refused.ctx).sort((x, y) => x.d.localeCompare(y.d)),
    [
      { d: 'l1', o: 'benched', ms: 0 },
      { d: 'l2', o: 'benched', ms: 0 },
    ],
  );
  t.equal(r.providers.calls.length, calls, 'no further provider calls');
});

t.test('weight 0 and key-less deployments are never chosen', async (t) => {
  const r = await router(t, [
    { name: 'zero', deployments: [deployment('z', { weight: 0 })] },
    { name: 'keyless', deployments: [deployment('k', { api_key: '' })] },
    {
      name: 'mixed',
      deployments: [
        deployment('off', { weight: 0 }),
        deployment('on', { weight: 1 }),
        deployment('nokey', { api_key: '' }),
      ],
    },
  ]);
  for (const group of ['zero', 'keyless']) {
    const { ctx, error } = await r.send(group);
    t.ok(error instanceof GatewayError && error.code === 'no_deployment_available', `${group}: 503`);
    t.match((error as Error).message, group, 'the message names the group');
    t.equal(ctx.servedGroup, group);
    t.same(ctx.attempts, [], 'no attempt was made');
    t.equal(ctx.deployment, undefined);
  }
  for (let i = 0; i < 20; i++) t.equal((await r.send('mixed')).ctx.deployment, 'on');
  t.same(new Set(r.providers.calls.map((c) => c.deployment)), new Set(['on']), 'the others were never called');
});

t.test('the weighted choice honours the weights', async (t) => {
  const heavy = { id: 'heavy', weight: 3 } as DeploymentConfig;
  const light = { id: 'light', weight: 1 } as DeploymentConfig;
  const counts: Record<string, number> = { heavy: 0, light: 0 };
  // An even spread of random numbers over [0, 1): exactly proportional.
  for (let i = 0; i < 200; i++) counts[weightedChoice([heavy, light], () => i / 200).id]++;
  t.same(counts, { heavy: 150, light: 50 });
  t.equal(
    weightedChoice([light], () => 0.99),
    light,
    'one candidate is the choice',
  );

  const r = await router(t, [{ name: 'w', deployments: [deployment('heavy', { weight: 3 }), deployment('light')] }]);
  const served: Record<string, number> = { heavy: 0, light: 0 };
  for (let i = 0; i < 200; i++) served[(await r.send('w')).ctx.deployment!]++;
  // Expected 150 : 50; the standard deviation is about 6, so these bounds are more than 4 sigma wide.
  t.ok(served.heavy >= 120 && served.heavy <= 180, `heavy served ${served.heavy} of 200`);
});

t.test('attempt records: {d, o, ms, st?, why?} and, for the trace, when each attempt began', async (t) => {
  const r = await router(t, [
    { name: 'g', routing: { retries: 1, bench_ms: 0 }, deployments: [deployment('a'), deployment('b')] },
  ]);
  const long = new UpstreamError('http', `bad gateway über ${'x'.repeat(300)}`, { status: 502 });
  r.providers.next({ fail: long });
  const { ctx } = await r.send('g');
  const [failed, ok] = ctx.attempts;
  t.same(Object.keys(failed).sort(), ['d', 'ms', 'o', 'st', 'startedAt', 'why']);
  t.same(Object.keys(ok).sort(), ['d', 'ms', 'o', 'startedAt']);
  t.equal(failed.why, long.message.slice(0, 200), 'why is the provider message, cut at 200 characters');
  for (const a of ctx.attempts) {
    t.ok(Number.isInteger(a.ms) && a.ms >= 0, 'ms is a non-negative integer');
    t.equal(a.startedAt, r.services.clock.now(), 'startedAt comes from the injected clock');
    t.ok(['a', 'b'].includes(a.d));
  }
});

t.test('a served answer carries its source, usage, cost and price', async (t) => {
  const r = await router(t, [{ name: 'g', deployments: [deployment('a')] }]);
  r.providers.script('a', { answer: 'hi', usage: usage(10, 5) });
  const { ctx, response } = await r.send('g');
  t.match(response, {
    kind: 'json',
    status: 200,
    source: 'upstream',
    body: { choices: [{ message: { content: 'hi' } }] },
  });
  t.same(ctx.usage, usage(10, 5));
  t.equal(ctx.cost, (10 * 1 + 5 * 2) / 1e6, 'the usage at the deployment price');
  t.equal(ctx.costEstimated, false);
  t.same(ctx.price, { input_per_mtok: 1, output_per_mtok: 2 });
});

t.test('embeddings go only where an embeddings API is offered, under the same retry rules', async (t) => {
  const r = await router(t, [
    { name: 'chat-only', deployments: [deployment('c1', { embeddings: false })] },
    { name: 'mixed', deployments: [deployment('m1', { embeddings: false }), deployment('m2')] },
    { name: 'emb', routing: { retries: 1, bench_ms: 0 }, deployments: [deployment('e1'), deployment('e2')] },
  ]);
  const refused = await r.send('chat-only', {}, 'embeddings');
  t.ok(refused.error instanceof GatewayError && refused.error.code === 'embeddings_not_supported');
  t.equal((refused.error as Error).message, "No deployment in model group 'chat-only' offers an embeddings API.");
  t.equal(r.providers.calls.length, 0, 'nothing was sent to a provider');
  t.ok((await r.send('chat-only')).response, 'chat on the same group still works');
  for (let i = 0; i < 5; i++) t.equal((await r.send('mixed', {}, 'embeddings')).ctx.deployment, 'm2');

  r.providers.next({ fail: httpError(500) });
  const retried = await r.send('emb', { stream: true }, 'embeddings');
  t.equal(retried.response?.kind, 'json', 'embeddings answer as JSON, stream: true or not');
  t.match(records(retried.ctx), [{ o: 'retryable', st: 500 }, { o: 'ok' }]);
  t.equal(retried.ctx.cost, (10 * 1 + 5 * 2) / 1e6);
  t.equal(r.providers.calls.at(-1)!.kind, 'embeddings');
});

t.test('a stream is priced with the admission estimate until its usage arrives', async (t) => {
  const r = await router(t, [{ name: 'g', deployments: [deployment('a')] }]);
  r.providers.script('a', { stream: ['Hel', 'lo'], usage: usage(12, 2) });
  const { ctx, response } = await r.send('g', { stream: true, max_tokens: 100 });
  t.equal(response?.kind, 'stream');
  t.equal(response?.source, 'upstream');
  const estimate = ctx.estimate();
  t.same(estimate, { promptTokens: 9, outputTokens: 100 }, '"Hello" in one message, and max_tokens');
  t.equal(ctx.cost, (9 * 1 + 100 * 2) / 1e6, 'the estimate at the deployment price');
  t.equal(ctx.costEstimated, true);
  t.ok(r.providers.calls[0].call.signal instanceof AbortSignal, 'a stream can be aborted (idle gaps, drain)');
  const received: ChatChunk[] = [];
  for await (const c of (response as { events: AsyncIterable<ChatChunk> }).events) received.push(c);
  t.equal(received.length, 4, 'role, two pieces and the finish; the usage chunk the client did not ask for is dropped');
  t.notOk(received.some((c) => 'usage' in c));
  t.same(ctx.usage, usage(12, 2), 'the usage is kept');
  t.equal(ctx.cost, (12 * 1 + 2 * 2) / 1e6, 'and the cost is now the real one');
});

t.test('after the client leaves a stream is read on, at most disconnect_drain_chunks chunks', async (t) => {
  const r = await router(t, [{ name: 'g', deployments: [deployment('a')] }], { disconnect_drain_chunks: 2 });
  r.providers.script('a', { stream: Array.from({ length: 10 }, (_, i) => `w${i} `), usage: usage(12, 10) });
  const { ctx, response } = await r.send('g', { stream: true, stream_options: { include_usage: true } });
  const events = (response as { events: AsyncIterable<ChatChunk> }).events;
  let read = 0;
  for await (const _ of events) {
    if (++read === 1) ctx.leave();
  }
  t.equal(read, 3, 'the chunk in hand, then two more, then the upstream is let go');
  t.equal(ctx.usage, undefined, 'the usage chunk never came within the bound');
});

t.test('bench state that cannot be read or written does not fail the request', async (t) => {
  const r = await router(t, [
    { name: 'g', routing: { retries: 1, bench_ms: 60_000 }, deployments: [deployment('a'), deployment('b')] },
  ]);
  const down = new CountersUnavailableError('redis is down');
  const counters: Counters = r.services.counters;
  counters.readMarks = () => Promise.reject(down);
  counters.extendMark = () => Promise.reject(down);
  r.providers.next({ fail: httpError(500) });
  const { ctx, response } = await r.send('g');
  t.ok(response, 'routed as if nothing were benched; its own failure still moved it on');
  t.equal(ctx.annotations['gateway.bench_error'], 'redis is down', 'the trace says why');
});
