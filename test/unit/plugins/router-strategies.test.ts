// The router's routing strategies (`routing.strategy`), the plugin called directly with fake providers, in-process
// counters and a fake clock: which deployment each strategy picks and why (the trace's gateway.routing.* entries),
// that bench and retries override every preference, and what each strategy records in the counters store.
import t, { type Test } from 'tap';
import routerPlugin from '../../../plugins/router/index.ts';
import { EXPLORATION_SHARE, lowestLatency } from '../../../plugins/router/lowest-latency.ts';
import { prefixHash } from '../../../plugins/router/prefix-affinity.ts';
import {
  CountersUnavailableError,
  type Counters,
  type DeploymentConfig,
  type PluginHooks,
} from '../../../src/plugin-api/index.ts';
import { routingBoard } from '../../../plugins/router/routing-board.ts';
import { fakeProviders, httpError, type FakeProviders } from '../../helpers/fake-providers.ts';
import { makeCtx, pluginServices, setupPlugin, type PluginServices, type TestCtx } from '../../helpers/plugin.ts';
import { openaiDeployment, TEST_KEY } from '../../helpers/test-config.ts';

const deployment = (id: string, extra: Record<string, unknown> = {}) =>
  openaiDeployment(id, 'http://provider.invalid', { price: { input_per_mtok: 1, output_per_mtok: 2 }, ...extra });

interface Router {
  services: PluginServices;
  providers: FakeProviders;
  hooks: PluginHooks;
  board: ReturnType<typeof routingBoard>;
  /** Sends a chat request (its messages, or one Hello) and runs onLog, as the pipeline does, unless `keep`. */
  send(extra?: Record<string, unknown>, options?: { keep?: boolean; route?: 'chat' | 'embeddings' }): Promise<TestCtx>;
}

async function router(t: Test, routing: Record<string, unknown>, deployments: Record<string, unknown>[]) {
  const providers = fakeProviders();
  const services = pluginServices(t, {
    config: {
      model_groups: [{ name: 'g', created_at: '2026-11-21T00:00:00Z', routing, deployments }],
      keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['g'] }],
    },
    providers,
  });
  const hooks = await setupPlugin(routerPlugin, services);
  const r: Router = {
    services,
    providers,
    hooks,
    board: routingBoard(services.counters),
    async send(extra = {}, options = {}) {
      const route = options.route ?? 'chat';
      const body =
        route === 'embeddings'
          ? { model: 'g', input: 'hello', ...extra }
          : { model: 'g', messages: [{ role: 'user', content: 'Hello' }], ...extra };
      const ctx = makeCtx({ route, body, clock: services.clock });
      ctx.group = services.modelGroups.get('g');
      await hooks.handle!(ctx);
      if (!options.keep) hooks.onLog!(ctx);
      return ctx;
    },
  };
  return r;
}

const group = (r: Router) => r.services.modelGroups.get('g')!;
/** Figures by deployment id, as a plain object. */
const figures = (map: Map<string, number> | Promise<Map<string, number>>) =>
  Object.fromEntries(map as Map<string, number>);
const routed = (ctx: TestCtx) => [ctx.deployment, ctx.annotations['gateway.routing.reason']];
const tally = (ids: (string | undefined)[]) => {
  const out: Record<string, number> = {};
  for (const id of ids) out[id!] = (out[id!] ?? 0) + 1;
  return out;
};

t.test('weighted is the default, and the trace names the strategy and the reason', async (t) => {
  const r = await router(t, {}, [deployment('a'), deployment('b')]);
  const ctx = await r.send();
  t.equal(ctx.annotations['gateway.routing.strategy'], 'weighted');
  t.equal(ctx.annotations['gateway.routing.reason'], 'weight');
  t.same(figures(r.board.inFlight(group(r))), { a: 0, b: 0 }, 'weighted takes no leases');
});

t.test('least-busy: the deployment with the fewest requests in flight; a request counts until its log', async (t) => {
  const r = await router(t, { strategy: 'least-busy', retries: 1, bench_ms: 0 }, [deployment('a'), deployment('b')]);
  const g = group(r);
  // Two requests in flight on a (another replica's, as the counters store shows them).
  await r.board.start(g, 'a', 'elsewhere-1');
  await r.board.start(g, 'a', 'elsewhere-2');
  const first = await r.send({}, { keep: true });
  t.same(routed(first), ['b', 'fewest_in_flight']);
  t.equal(first.annotations['gateway.routing.strategy'], 'least-busy');
  t.same(figures(r.board.inFlight(g)), { a: 2, b: 1 }, 'in flight until the response has ended');
  t.same(routed(await r.send({}, { keep: true })), ['b', 'fewest_in_flight'], 'b: 1 in flight, a: 2');
  t.same(figures(r.board.inFlight(g)), { a: 2, b: 2 });
  r.hooks.onLog!(first);
  t.same(figures(r.board.inFlight(g)), { a: 2, b: 1 }, 'the log ends it');

  // A failed attempt stops counting at once; the retry goes to the other deployment.
  r.providers.script('b', { fail: httpError(500) });
  const retried = await r.send({}, { keep: true });
  t.match(retried.attempts, [
    { d: 'b', o: 'retryable' },
    { d: 'a', o: 'ok' },
  ]);
  t.same(figures(r.board.inFlight(g)), { a: 3, b: 1 }, 'only the serving attempt still counts');
  r.hooks.onLog!(retried);
  t.same(figures(r.board.inFlight(g)), { a: 2, b: 1 });
});

t.test('cost: the cheapest for this request at its estimate, until it is benched', async (t) => {
  const r = await router(t, { strategy: 'cost', retries: 1, bench_ms: 60_000 }, [
    // In dear, out cheap; and the other way round.
    deployment('reader', { price: { input_per_mtok: 10, output_per_mtok: 1 } }),
    deployment('writer', { price: { input_per_mtok: 1, output_per_mtok: 10 } }),
    deployment('unpriced', { price: undefined, model: 'not-in-the-builtin-table' }),
  ]);
  const longPrompt = { messages: [{ role: 'user', content: 'word '.repeat(2000) }], max_tokens: 10 };
  const longAnswer = { max_tokens: 4000 };
  for (let i = 0; i < 5; i++) t.same(routed(await r.send(longPrompt)), ['writer', 'cheapest'], 'long prompt');
  for (let i = 0; i < 5; i++) t.same(routed(await r.send(longAnswer)), ['reader', 'cheapest'], 'long answer');

  r.providers.script('writer', { fail: httpError(503) });
  const failed = await r.send(longPrompt);
  t.match(
    failed.attempts,
    [
      { d: 'writer', o: 'retryable' },
      { d: 'reader', o: 'ok' },
    ],
    'benched, then the next',
  );
  t.same(routed(await r.send(longPrompt)), ['reader', 'cheapest'], 'the cheapest that is not benched');
  r.services.clock.advance(60_000);
  t.same(routed(await r.send(longPrompt)), ['writer', 'cheapest'], 'back when the bench ends');
});

t.test('cost: a group without prices goes by weight', async (t) => {
  const r = await router(t, { strategy: 'cost' }, [
    deployment('free', { price: undefined, model: 'not-in-the-builtin-table' }),
  ]);
  t.same(routed(await r.send()), ['free', 'unpriced']);
});

t.test('latency: the unmeasured first, then the lowest average; each served attempt is a sample', async (t) => {
  const r = await router(t, { strategy: 'latency' }, [deployment('fast'), deployment('slow')]);
  const g = group(r);
  await r.services.counters.addSample('{g:g}:latency', 'slow', 900, 1, 60_000);
  t.same(routed(await r.send()), ['fast', 'unmeasured'], 'a deployment without a figure is tried first');
  t.ok((r.board.latencies(g) as Map<string, number>).has('fast'), 'the served attempt was recorded');
  // Figures as they would be after real traffic.
  await r.services.counters.addSample('{g:g}:latency', 'fast', 40, 1, 60_000);
  const picks = [];
  for (let i = 0; i < 40; i++) picks.push((await r.send()).annotations['gateway.routing.reason']);
  t.ok(picks.filter((p) => p === 'lowest_latency').length >= 30, 'mostly the fastest');
});

t.test('latency: a small share of requests goes to the others, by weight', async (t) => {
  const d = (id: string, weight = 1) => ({ id, weight }) as DeploymentConfig;
  const latencies = new Map(Object.entries({ fast: 50, slow: 500, slower: 900 }));
  const candidates = [d('fast'), d('slow', 3), d('slower')];
  t.same(
    lowestLatency(candidates, latencies, () => 0.5),
    { d: candidates[0], reason: 'lowest_latency' },
  );
  t.same(lowestLatency(candidates, latencies, () => EXPLORATION_SHARE / 2).reason, 'exploration');
  const picks = Array.from({ length: 20_000 }, () => lowestLatency(candidates, latencies).d.id);
  const counts = tally(picks);
  t.ok(Math.abs(counts.fast / 20_000 - (1 - EXPLORATION_SHARE)) < 0.01, `fastest ${counts.fast} of 20000`);
  t.ok(counts.slow > counts.slower * 2, 'the others by weight');
});

t.test('prefix-affinity: one prefix, one deployment; bench and load override it', async (t) => {
  const ids = ['a', 'b', 'c'];
  const r = await router(
    t,
    { strategy: 'prefix-affinity', retries: 1, bench_ms: 60_000 },
    ids.map((id) => deployment(id)),
  );
  const g = group(r);
  const conversation = (n: number, turns: number) => ({
    tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
    messages: [
      { role: 'system', content: 'You are a support agent for a shop.' },
      { role: 'user', content: `Conversation ${n} starts here.` },
      ...Array.from({ length: turns }, (_, i) => ({ role: i % 2 ? 'user' : 'assistant', content: `turn ${i}` })),
    ],
  });
  const homes = [];
  for (let n = 0; n < 12; n++) {
    const first = await r.send(conversation(n, 0));
    t.equal(first.annotations['gateway.routing.reason'], 'affinity_home');
    for (let turns = 1; turns < 4; turns++)
      t.same(routed(await r.send(conversation(n, turns))), [first.deployment, 'affinity_home'], `conversation ${n}`);
    homes.push(first.deployment);
  }
  t.ok(new Set(homes).size > 1, `conversations spread over deployments: ${homes.join(' ')}`);

  // Bench overrides affinity: the home fails, is benched, and its prefixes move until the bench ends.
  const home = homes[0]!;
  r.providers.script(home, { fail: httpError(500) });
  const moved = await r.send(conversation(0, 1));
  t.match(moved.attempts, [{ d: home, o: 'retryable' }, { o: 'ok' }]);
  const next = await r.send(conversation(0, 2));
  t.not(next.deployment, home);
  t.equal(next.annotations['gateway.routing.reason'], 'affinity_home_unavailable');
  t.same(routed(await r.send(conversation(0, 3))), [next.deployment, 'affinity_home_unavailable'], 'stays together');
  r.services.clock.advance(60_000);
  t.same(routed(await r.send(conversation(0, 3))), [home, 'affinity_home'], 'home again after the bench');

  // Load overrides affinity: the home's requests in flight above its bounded share pass the prefix on.
  for (let i = 0; i < 4; i++) await r.board.start(g, home, `elsewhere-${i}`);
  const busy = await r.send(conversation(0, 1));
  t.not(busy.deployment, home);
  t.equal(busy.annotations['gateway.routing.reason'], 'affinity_home_busy');
  const other = homes.findIndex((h) => h !== home);
  t.same(routed(await r.send(conversation(other, 1))), [homes[other], 'affinity_home'], 'other prefixes stay home');

  const embedding = await r.send({}, { route: 'embeddings' });
  t.equal(embedding.annotations['gateway.routing.reason'], 'no_prefix', 'embeddings have no prefix: by weight');
});

t.test('the prefix: tools, leading system messages and the first message after them', async (t) => {
  const tools = [{ type: 'function', function: { name: 'lookup' } }];
  const start = [
    { role: 'system', content: 'Be brief.' },
    { role: 'developer', content: 'Use the tools.' },
    { role: 'user', content: 'First question' },
  ];
  const base = prefixHash({ tools, messages: start });
  t.type(base, 'number');
  const later = [...start, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'more' }];
  t.equal(prefixHash({ tools, messages: later, temperature: 0.2 }), base, 'later turns and parameters do not count');
  t.not(prefixHash({ messages: start }), base, 'the tools count');
  t.not(prefixHash({ tools, messages: [start[0], start[2]] }), base, 'each system message counts');
  t.not(prefixHash({ tools, messages: [...start.slice(0, 2), { role: 'user', content: 'Other' }] }), base);
  t.not(prefixHash({ tools, messages: [{ role: 'user', content: [{ type: 'text', text: 'First question' }] }] }), base);
  const long = (tail: string) => prefixHash({ messages: [{ role: 'user', content: 'x'.repeat(20_000) + tail }] });
  t.equal(long('a'), long('b'), 'past the first 16 K characters only the length counts');
  t.not(long('a'), long('ab'));
  t.equal(prefixHash({ input: 'hello' }), undefined, 'no messages, no prefix');
});

t.test('figures that cannot be read or written do not fail the request', async (t) => {
  const down = new CountersUnavailableError('redis is down');
  for (const strategy of ['least-busy', 'latency', 'prefix-affinity']) {
    const r = await router(t, { strategy }, [deployment('a'), deployment('b')]);
    const counters: Counters = r.services.counters;
    counters.countLeases = () => Promise.reject(down);
    counters.readAverages = () => Promise.reject(down);
    counters.takeLease = counters.releaseLease = counters.addSample = () => Promise.reject(down);
    const ctx = await r.send();
    t.ok(ctx.deployment, `${strategy}: served`);
    t.equal(ctx.annotations['gateway.routing_error'], 'redis is down', `${strategy}: the trace says why`);
    t.equal(
      ctx.annotations['gateway.routing.reason'],
      strategy === 'prefix-affinity' ? 'affinity_home' : 'figures_unavailable',
      `${strategy}: by weight, or the prefix's home without the load bound`,
    );
  }
});
