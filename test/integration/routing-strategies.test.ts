// Routing strategies on the wire, with the openai SDK as the client: prefix-affinity against weighted on the same
// traffic to fake providers with a prompt cache (cached tokens and cost as the client sees them, the strategy and
// reason on the stored trace); latency against a slow and a fast provider, and for streams the time to the first
// chunk as the sample; least-busy across two gateway replicas sharing Redis, one provider holding its requests. The
// decisions themselves are tested on the plugin in test/unit/plugins/router-strategies.test.ts.
import OpenAI from 'openai';
import t from 'tap';
import { routingBoard } from '../../plugins/router/routing-board.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { startFakeOpenAI } from '../helpers/fake-openai.ts';
import { startPromptCacheProvider, type PromptCacheProvider } from '../helpers/fake-prompt-cache.ts';
import { startGateways } from '../helpers/gateways.ts';
import { TEST_KEY, baseConfig, openaiDeployment, startTestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

const PRICE = { input_per_mtok: 3, cached_input_per_mtok: 0.3, output_per_mtok: 15 };
const client = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: TEST_KEY, maxRetries: 0, timeout: 10_000 });

async function cacheFakes(n: number): Promise<PromptCacheProvider[]> {
  const fakes = await Promise.all(Array.from({ length: n }, () => startPromptCacheProvider()));
  t.teardown(() => Promise.all(fakes.map((f) => f.close())));
  return fakes;
}

/** Conversation `n` at turn `turn`: a long document first, then questions and answers. */
function conversation(n: number, turn: number): OpenAI.ChatCompletionMessageParam[] {
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'Answer questions about the document.' },
    { role: 'user', content: `Document ${n}: ${`clause ${n} of the contract says something. `.repeat(150)}` },
  ];
  for (let i = 0; i < turn; i++)
    messages.push({ role: 'assistant', content: 'ok' }, { role: 'user', content: `q${i}` });
  return messages;
}

t.test('prefix-affinity: a higher cached-token share and a lower cost than weighted on the same traffic', async (t) => {
  const [weightedFakes, affinityFakes] = [await cacheFakes(3), await cacheFakes(3)];
  const group = (name: string, strategy: string, fakes: PromptCacheProvider[]) => ({
    name,
    routing: { strategy },
    deployments: fakes.map((f, i) => openaiDeployment(`${name}-${i}`, f.url, { price: PRICE })),
  });
  const svc = await startTestService(
    t,
    baseConfig({
      model_groups: [group('weighted', 'weighted', weightedFakes), group('affinity', 'prefix-affinity', affinityFakes)],
      keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['weighted', 'affinity'] }],
      plugins: [{ use: 'auth' }, { use: 'router' }, { use: 'tracing' }],
    }),
  );
  const openai = client(svc.gatewayUrl);
  const totals = { weighted: { prompt: 0, cached: 0, cost: 0 }, affinity: { prompt: 0, cached: 0, cost: 0 } };
  let lastId = '';
  // Eight conversations of four turns each, interleaved as concurrent users would send them.
  for (let turn = 0; turn < 4; turn++) {
    for (let n = 0; n < 8; n++) {
      for (const model of ['weighted', 'affinity'] as const) {
        const { data, response } = await openai.chat.completions
          .create({ model, messages: conversation(n, turn) })
          .withResponse();
        totals[model].prompt += data.usage!.prompt_tokens;
        totals[model].cached += data.usage!.prompt_tokens_details!.cached_tokens!;
        totals[model].cost += Number(response.headers.get('x-svc-cost'));
        if (model === 'affinity') lastId = response.headers.get('x-svc-request-id')!;
      }
    }
  }
  const share = (m: keyof typeof totals) => totals[m].cached / totals[m].prompt;
  t.ok(share('affinity') > 0.7, `affinity: ${(100 * share('affinity')).toFixed(1)}% of prompt tokens cached`);
  t.ok(
    share('affinity') > share('weighted') + 0.1,
    `weighted: ${(100 * share('weighted')).toFixed(1)}% cached, measurably less`,
  );
  t.ok(totals.affinity.cost < totals.weighted.cost * 0.8, `cost ${totals.affinity.cost} < ${totals.weighted.cost}`);
  t.ok(
    affinityFakes.filter((f) => f.received > 0).length > 1,
    'the conversations were spread over the deployments, not all sent to one',
  );

  const trace = await waitFor('trace stored', () => getTrace(svc.service.db, 'default', lastId), 15_000);
  t.match(trace.metadata, { 'gateway.routing.strategy': 'prefix-affinity', 'gateway.routing.reason': 'affinity_home' });
});

t.test('latency: the fast deployment takes most requests, the slow one a small share', async (t) => {
  const slow = await startFakeOpenAI({ type: 'delay', ms: 150, then: { type: 'ok' } });
  const fast = await startFakeOpenAI();
  t.teardown(() => Promise.all([slow.close(), fast.close()]));
  const svc = await startTestService(
    t,
    baseConfig({
      model_groups: [
        {
          name: 'demo',
          routing: { strategy: 'latency' },
          deployments: [openaiDeployment('slow', slow.url), openaiDeployment('fast', fast.url)],
        },
      ],
    }),
  );
  const openai = client(svc.gatewayUrl);
  for (let i = 0; i < 40; i++)
    await openai.chat.completions.create({ model: 'demo', messages: [{ role: 'user', content: 'Hello' }] });
  t.ok(slow.requests.length >= 1, `slow: ${slow.requests.length} of 40 (measured first, then explored)`);
  t.ok(fast.requests.length >= 32, `fast: ${fast.requests.length} of 40`);
});

t.test("latency: a stream's sample is its time to the first chunk, not to its end", async (t) => {
  // quick-start sends its first chunk at once and the rest 150 ms apart (5 gaps: at least 750 ms in all);
  // quick-finish waits 150 ms, then streams without pauses.
  const quickStart = await startFakeOpenAI({ type: 'stream', pieces: ['Hello', ' there', ' friend'], gapMs: 150 });
  const quickFinish = await startFakeOpenAI({ type: 'delay', ms: 150, then: { type: 'stream' } });
  t.teardown(() => Promise.all([quickStart.close(), quickFinish.close()]));
  const svc = await startTestService(
    t,
    baseConfig({
      model_groups: [
        {
          name: 'demo',
          routing: { strategy: 'latency' },
          deployments: [
            openaiDeployment('quick-start', quickStart.url),
            openaiDeployment('quick-finish', quickFinish.url),
          ],
        },
      ],
    }),
  );
  const openai = client(svc.gatewayUrl);
  const streamTimes: Record<string, number> = {};
  // Unmeasured deployments are tried first: streams until each has served one.
  for (let i = 0; i < 10 && Object.keys(streamTimes).length < 2; i++) {
    const started = performance.now();
    const { data: stream, response } = await openai.chat.completions
      .create({ model: 'demo', messages: [{ role: 'user', content: 'Hello' }], stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    t.ok(text.length > 0, 'the client read the streamed content');
    streamTimes[response.headers.get('x-svc-deployment')!] = performance.now() - started;
  }
  t.ok(
    streamTimes['quick-start'] > streamTimes['quick-finish'] + 300,
    `quick-start's stream took ${streamTimes['quick-start']?.toFixed(0)} ms to end, quick-finish's ` +
      `${streamTimes['quick-finish']?.toFixed(0)} ms`,
  );

  const group = svc.service.current().config.model_groups.find((g) => g.name === 'demo')!;
  const board = routingBoard(svc.service.counters);
  const latencies = await waitFor('both latency figures stored', async () => {
    const figures = await board.latencies(group);
    return figures.size === 2 && figures;
  });
  const [started, finished] = [latencies.get('quick-start')!, latencies.get('quick-finish')!];
  t.ok(
    started < streamTimes['quick-start'] / 2,
    `quick-start's figure (${started} ms) is its first chunk, not its end`,
  );
  t.ok(finished >= 100, `quick-finish's figure (${finished} ms) includes its 150 ms wait for the first chunk`);
  t.ok(started < finished, 'so the latency strategy prefers the deployment whose streams start sooner');
});

t.test('least-busy across two replicas sharing Redis: a slow deployment gets no pile-up', async (t) => {
  const slow = await startPromptCacheProvider();
  const fast = await startPromptCacheProvider();
  t.teardown(() => Promise.all([slow.close(), fast.close()]));
  let release!: () => void;
  slow.hold = new Promise((r) => (release = r));
  t.teardown(() => release());
  const gateways = await startGateways(
    t,
    'redis',
    baseConfig({
      model_groups: [
        {
          name: 'demo',
          routing: { strategy: 'least-busy' },
          deployments: [openaiDeployment('slow', slow.url), openaiDeployment('fast', fast.url)],
        },
      ],
    }),
  );
  const clients = gateways.urls.map(client);
  const held: Promise<unknown>[] = [];
  // One request at a time, alternating replicas: each waits until it reached a provider, and until it was answered
  // when it was not held. With weights alone about half would pile up on the slow deployment.
  for (let i = 0; i < 16; i++) {
    const fastBefore = fast.received;
    const sent = clients[i % 2].chat.completions.create({ model: 'demo', messages: [{ role: 'user', content: 'Hi' }] });
    await waitFor('the request reached a provider', () => slow.received + fast.received === i + 1 || undefined);
    if (fast.received > fastBefore) await sent;
    else held.push(sent);
  }
  t.ok(slow.received <= 2, `slow: ${slow.received} of 16 held at once, each replica seeing the other's`);
  t.equal(slow.holding, slow.received, 'all of them still held');
  release();
  await Promise.all(held);
});
