// cache plugin end to end: hits and misses, canonical keys, project and group isolation, TTL, streamed requests
// answered from a stored answer (raw SSE and the openai SDK), embeddings never cached, the bypass headers, what is
// not stored, the trace's cache_hit, config errors, and the Redis backend shared by two gateway processes (a hit on
// one for an answer stored by the other, TTL in Redis, Redis going away).
import OpenAI from 'openai';
import { Redis } from 'ioredis';
import t from 'tap';
import { getTrace, type StoredTrace } from '../../src/platform/store/repos/traces.ts';
import { systemClock, type Clock } from '../../src/platform/clock.ts';
import { chatCompletion, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.ts';
import { startGateways } from '../helpers/gateways.ts';
import { REDIS_URL, redisTestPrefix } from '../helpers/redis.ts';
import { TEST_KEY, baseConfig, openaiDeployment, postJson, startTestService } from '../helpers/service.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { sleep, waitFor } from '../helpers/wait-for.ts';

const OTHER_KEY = 'sk-test-other-project-0123456789';
const price = { input_per_mtok: 0.15, output_per_mtok: 0.6 };

const up = await startFakeOpenAI();
t.teardown(() => up.close());

/** Groups `fake` and `twin` (both on the fake upstream); TEST_KEY in project `default`, OTHER_KEY in `second`. */
function cacheConfig(cache: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return baseConfig({
    projects: [
      { id: 'default', name: 'Default' },
      { id: 'second', name: 'Second' },
    ],
    model_groups: [
      {
        name: 'fake',
        created_at: '2026-11-21T00:00:00Z',
        routing: { retries: 0 },
        deployments: [openaiDeployment('fake-up', up.url, { price })],
      },
      {
        name: 'twin',
        created_at: '2026-11-21T00:00:00Z',
        routing: { retries: 0 },
        deployments: [openaiDeployment('twin-up', up.url, { price })],
      },
    ],
    keys: [
      { alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['fake', 'twin'] },
      { alias: 'other', key: OTHER_KEY, project: 'second', model_groups: ['fake'] },
    ],
    plugins: [{ use: 'auth' }, { use: 'cache', config: cache }, { use: 'router' }, { use: 'tracing' }],
    ...extra,
  });
}

let unique = 0;
/** A chat body no other test sends, so each test starts with an empty cache. */
const freshBody = (extra: Record<string, unknown> = {}) => ({
  model: 'fake',
  messages: [{ role: 'user', content: `question ${++unique}` }],
  ...extra,
});

function chat(url: string, body: unknown, headers: Record<string, string> = {}) {
  return postJson(url, '/v1/chat/completions', body, headers);
}

/** Upstream calls made while `fn` runs. */
async function upstreamCalls(fake: FakeOpenAI, fn: () => Promise<unknown>): Promise<number> {
  const before = fake.requests.length;
  await fn();
  return fake.requests.length - before;
}

/** The `data:` payloads of an SSE body. */
function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => frame.slice('data: '.length));
}

const mem = await startTestService(t, cacheConfig({ ttl_s: 60 }));
const url = mem.gatewayUrl;
const trace = (res: Response, project = 'default'): Promise<StoredTrace> =>
  waitFor('the trace', () => getTrace(mem.service.db, project, res.headers.get('x-svc-request-id')!));

t.test('a second identical request is a hit: same body, usage, no provider call, cost 0', async (t) => {
  const body = freshBody();
  up.queue.push({ type: 'ok', content: 'first answer', usage: { prompt_tokens: 11, completion_tokens: 7 } });
  let first!: Response;
  t.equal(await upstreamCalls(up, async () => (first = await chat(url, body))), 1);
  const firstText = await first.text();
  t.equal(first.status, 200);
  t.equal(first.headers.get('x-svc-cache'), null, 'a miss carries no x-svc-cache');
  t.not(first.headers.get('x-svc-cost'), '0');

  let second!: Response;
  t.equal(await upstreamCalls(up, async () => (second = await chat(url, body))), 0, 'the provider is not called');
  t.equal(second.status, 200);
  t.equal(await second.text(), firstText, 'the body is the first answer, byte for byte');
  t.equal(second.headers.get('x-svc-cache'), 'hit');
  t.equal(second.headers.get('x-svc-model-group'), 'fake');
  t.equal(second.headers.get('x-svc-cost'), '0');
  t.equal(second.headers.get('x-svc-cost-estimated'), 'false');
  t.equal(second.headers.get('x-svc-attempts'), null);
  t.equal(second.headers.get('x-svc-deployment'), null);
  t.not(second.headers.get('x-svc-request-id'), first.headers.get('x-svc-request-id'));
  t.same(JSON.parse(firstText).usage.total_tokens, 18);

  const missTrace = await trace(first);
  t.equal(missTrace.cacheHit, false);
  t.equal(missTrace.metadata['gateway.cache'], 'miss');
  const hitTrace = await trace(second);
  t.equal(hitTrace.cacheHit, true, 'the trace records the hit');
  t.equal(hitTrace.metadata['gateway.cache'], 'hit');
  t.equal(hitTrace.cost, 0);
});

t.test('key order and fields that do not change the answer still hit; answer fields miss', async (t) => {
  const content = `canonical ${++unique}`;
  const body = {
    model: 'fake',
    temperature: 0.2,
    messages: [{ role: 'user', content }],
    response_format: {
      type: 'json_schema',
      json_schema: { name: 's', schema: { type: 'object', properties: { a: { type: 'string' } } } },
    },
  };
  t.equal(await upstreamCalls(up, () => chat(url, body)), 1);
  const reordered = {
    response_format: {
      json_schema: { schema: { properties: { a: { type: 'string' } }, type: 'object' }, name: 's' },
      type: 'json_schema',
    },
    messages: [{ content, role: 'user' }],
    temperature: 0.2,
    model: 'fake',
    user: 'someone',
    metadata: { run: '7' },
    store: false,
    service_tier: 'default',
  };
  const res = await chat(url, reordered);
  t.equal(res.headers.get('x-svc-cache'), 'hit', 'reordered keys and attribution fields hit');
  for (const change of [{ temperature: 0.3 }, { seed: 42 }, { n: 2 }, { max_tokens: 5 }]) {
    const r = await chat(url, { ...body, ...change });
    t.equal(r.headers.get('x-svc-cache'), null, `${JSON.stringify(change)} misses`);
  }
});

t.test('never shared across projects or model groups', async (t) => {
  const body = freshBody();
  await chat(url, body);
  t.equal((await chat(url, body)).headers.get('x-svc-cache'), 'hit');
  const other = await chat(url, body, { authorization: `Bearer ${OTHER_KEY}` });
  t.equal(other.status, 200);
  t.equal(other.headers.get('x-svc-cache'), null, 'the other project misses');
  t.equal(
    (await chat(url, body, { authorization: `Bearer ${OTHER_KEY}` })).headers.get('x-svc-cache'),
    'hit',
    'and then has its own entry',
  );
  t.equal((await chat(url, { ...body, model: 'twin' })).headers.get('x-svc-cache'), null, 'another group misses');
});

t.test('a streamed request is answered from a stored answer as a valid SSE stream', async (t) => {
  const body = freshBody();
  up.queue.push({ type: 'ok', content: 'Streamed from the cache', usage: { prompt_tokens: 9, completion_tokens: 4 } });
  const stored = await (await chat(url, body)).json();

  let res!: Response;
  t.equal(await upstreamCalls(up, async () => (res = await chat(url, { ...body, stream: true }))), 0);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/event-stream/);
  t.equal(res.headers.get('x-svc-cache'), 'hit');
  t.equal(res.headers.get('x-svc-cost'), '0');
  t.equal(res.headers.get('x-svc-cost-estimated'), 'true', "a stream's cost is an estimate, even from the cache");
  const data = sseData(await res.text());
  t.equal(data.at(-1), '[DONE]');
  const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
  for (const c of chunks) {
    t.equal(c.object, 'chat.completion.chunk');
    t.equal(c.id, stored.id);
    t.notOk('usage' in c, 'no usage field when the client did not ask for it');
  }
  t.same(chunks[0].choices[0].delta, { role: 'assistant', content: '' });
  t.equal(chunks.map((c) => c.choices[0].delta.content ?? '').join(''), 'Streamed from the cache');
  t.equal(chunks.at(-1).choices[0].finish_reason, 'stop');

  const withUsage = sseData(
    await (await chat(url, { ...body, stream: true, stream_options: { include_usage: true } })).text(),
  );
  const last = JSON.parse(withUsage.at(-2)!);
  t.same(last.choices, []);
  t.same(last.usage, stored.usage, 'the usage chunk carries the stored usage');
  for (const d of withUsage.slice(0, -2)) t.equal(JSON.parse(d).usage, null);
});

t.test('the openai SDK reads a stream replayed from the cache, tool calls included', async (t) => {
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  type Params = OpenAI.ChatCompletionCreateParamsNonStreaming;
  const body = freshBody({
    tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
  }) as Params;
  const toolCalls = [
    { id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
    { id: 'call_b', type: 'function', function: { name: 'lookup', arguments: '{"q":"y"}' } },
  ];
  const answer = chatCompletion('', { prompt_tokens: 20, completion_tokens: 8 });
  answer.choices = [
    {
      index: 0,
      message: { role: 'assistant', content: null, tool_calls: toolCalls, refusal: null } as never,
      logprobs: null,
      finish_reason: 'tool_calls',
    },
  ];
  up.queue.push({ type: 'json', body: answer });
  const stored = await client.chat.completions.create(body);

  let final!: OpenAI.ChatCompletion;
  const calls = await upstreamCalls(up, async () => {
    const stream = client.chat.completions.stream({ ...body, stream: true, stream_options: { include_usage: true } });
    final = await stream.finalChatCompletion();
  });
  t.equal(calls, 0, 'served from the cache');
  t.same(final.choices[0].message.tool_calls, toolCalls);
  t.equal(final.choices[0].finish_reason, 'tool_calls');
  t.same(final.usage, stored.usage);

  const text = freshBody() as Params;
  const plain = await client.chat.completions.create(text);
  const chunks = [];
  for await (const chunk of await client.chat.completions.create({ ...text, stream: true })) chunks.push(chunk);
  t.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), plain.choices[0].message.content);
  t.equal(chunks.at(-1)!.choices[0].finish_reason, 'stop');
});

t.test('streamed answers are not stored', async (t) => {
  const body = freshBody();
  t.equal(await upstreamCalls(up, async () => (await chat(url, { ...body, stream: true })).text()), 1);
  const res = await chat(url, body);
  t.equal(res.headers.get('x-svc-cache'), null, 'the non-streamed request after a stream misses');
});

t.test('embeddings are never cached', async (t) => {
  const body = { model: 'fake', input: `embed ${++unique}` };
  const calls = await upstreamCalls(up, async () => {
    for (let i = 0; i < 2; i++) {
      const res = await postJson(url, '/v1/embeddings', body);
      t.equal(res.status, 200);
      t.equal(res.headers.get('x-svc-cache'), null);
      await res.arrayBuffer();
    }
  });
  t.equal(calls, 2);
});

t.test('cache-control no-cache refreshes; no-store and x-svc-cache: bypass neither read nor write', async (t) => {
  const body = freshBody();
  const content = async (res: Response) => (await res.json()).choices[0].message.content;
  up.queue.push({ type: 'ok', content: 'A' });
  await chat(url, body);
  up.queue.push({ type: 'ok', content: 'B' });
  const refreshed = await chat(url, body, { 'cache-control': 'no-cache' });
  t.equal(refreshed.headers.get('x-svc-cache'), null);
  t.equal(await content(refreshed), 'B', 'no-cache asks the provider');
  const afterRefresh = await chat(url, body);
  t.equal(afterRefresh.headers.get('x-svc-cache'), 'hit');
  t.equal(await content(afterRefresh), 'B', 'and stores its answer');

  const skips: Record<string, string>[] = [{ 'cache-control': 'no-store' }, { 'x-svc-cache': 'bypass' }];
  for (const headers of skips) {
    up.queue.push({ type: 'ok', content: 'C' });
    const bypassed = await chat(url, body, headers);
    t.equal(bypassed.headers.get('x-svc-cache'), null);
    t.equal(await content(bypassed), 'C', `${JSON.stringify(headers)} asks the provider`);
    t.equal(await content(await chat(url, body)), 'B', `${JSON.stringify(headers)} leaves the stored answer alone`);
  }

  const unstored = freshBody();
  await chat(url, unstored, { 'cache-control': 'no-store' });
  t.equal((await chat(url, unstored)).headers.get('x-svc-cache'), null, 'no-store did not store');
  const hitTrace = await trace(await chat(url, body, { 'x-svc-cache': 'bypass' }));
  t.equal(hitTrace.metadata['gateway.cache'], 'bypass');
});

t.test('errors and answers that finished with an error are not stored', async (t) => {
  const failed = freshBody();
  up.queue.push({ type: 'error', status: 400 });
  t.equal((await chat(url, failed)).status, 400);
  t.equal(await upstreamCalls(up, () => chat(url, failed)), 1, 'a provider error was not stored');

  const broken = freshBody();
  const answer = chatCompletion('partial');
  answer.choices[0].finish_reason = 'error';
  up.queue.push({ type: 'json', body: answer });
  t.equal((await chat(url, broken)).status, 200);
  t.equal(await upstreamCalls(up, () => chat(url, broken)), 1, 'finish_reason error was not stored');
});

t.test('an entry expires after ttl_s; an answer over max_entry_bytes is not stored', async (t) => {
  let offset = 0;
  const clock: Clock = { now: () => Date.now() + offset, sleep: systemClock.sleep };
  const svc = await startTestService(t, cacheConfig({ ttl_s: 60, max_entry_bytes: 2000 }), { clock });
  const body = freshBody();
  await chat(svc.gatewayUrl, body);
  offset = 59_000;
  t.equal((await chat(svc.gatewayUrl, body)).headers.get('x-svc-cache'), 'hit', 'one second before the TTL ends');
  offset = 60_000;
  t.equal(await upstreamCalls(up, () => chat(svc.gatewayUrl, body)), 1, 'at the TTL: a miss');
  t.equal((await chat(svc.gatewayUrl, body)).headers.get('x-svc-cache'), 'hit', 'stored again');

  const big = freshBody();
  up.queue.push({ type: 'ok', content: 'x'.repeat(2000) });
  await chat(svc.gatewayUrl, big);
  t.equal(await upstreamCalls(up, () => chat(svc.gatewayUrl, big)), 1, 'too large to store');
});

t.test('config: schema errors name the field; the redis backend needs store.redis_url', async (t) => {
  await t.rejects(startTestService(t, cacheConfig({ ttl_s: 0, colour: 'blue' })), /plugins\[1\]\.config/);
  await t.rejects(startTestService(t, cacheConfig({ backend: 'redis' })), /backend 'redis' needs store\.redis_url/);
});

t.test('redis backend: two gateway processes share one cache', async (t) => {
  const config = cacheConfig({ backend: 'redis', ttl_s: 2 });
  const { urls, service } = await startGateways(t, 'redis', config);
  const body = freshBody();
  up.queue.push({ type: 'ok', content: 'shared answer' });
  const first = await chat(urls[0], body);
  const firstText = await first.text();
  let second!: Response;
  t.equal(await upstreamCalls(up, async () => (second = await chat(urls[1], body))), 0);
  t.equal(second.headers.get('x-svc-cache'), 'hit', 'an answer stored by one process is a hit on the other');
  t.equal(await second.text(), firstText);
  const streamed = await chat(urls[1], { ...body, stream: true });
  t.equal(streamed.headers.get('x-svc-cache'), 'hit');
  t.equal(sseData(await streamed.text()).at(-1), '[DONE]');

  const prefix = service.current().config.store.redis_prefix;
  const redis = new Redis(REDIS_URL);
  t.teardown(() => redis.disconnect());
  const keys = await redis.keys(`${prefix}*cache*`);
  t.equal(keys.length, 1);
  t.match(
    keys[0],
    new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\{p:default\\}:cache:fake:[0-9a-f]{64}$`),
  );
  const ttl = await redis.pttl(keys[0]);
  t.ok(ttl > 0 && ttl <= 2000, `expires in Redis (${ttl} ms left)`);

  await sleep(2100);
  t.equal(await upstreamCalls(up, () => chat(urls[1], body)), 1, 'after ttl_s a miss');
});

t.test('redis backend: Redis unreachable is a miss, never a failed request', async (t) => {
  const proxy = await startTcpProxy(t, { host: '127.0.0.1', port: Number(new URL(REDIS_URL).port || 6379) });
  const svc = await startTestService(
    t,
    cacheConfig(
      { backend: 'redis', ttl_s: 60 },
      { store: { redis_url: `redis://${proxy.host}:${proxy.port}`, redis_prefix: redisTestPrefix(t) } },
    ),
  );
  const body = freshBody();
  await chat(svc.gatewayUrl, body);
  t.equal((await chat(svc.gatewayUrl, body)).headers.get('x-svc-cache'), 'hit');

  proxy.cut();
  let res!: Response;
  t.equal(await upstreamCalls(up, async () => (res = await chat(svc.gatewayUrl, body))), 1, 'answered by the provider');
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-svc-cache'), null);
  const outage = await waitFor('the trace', () =>
    getTrace(svc.service.db, 'default', res.headers.get('x-svc-request-id')!),
  );
  t.equal(outage.metadata['gateway.cache'], 'unavailable');
  t.match(outage.metadata['gateway.cache_error'], /Redis/);

  proxy.restore();
  await waitFor('ready again', async () => (await fetch(`${svc.gatewayUrl}/ready`)).status === 200);
  t.equal((await chat(svc.gatewayUrl, body)).headers.get('x-svc-cache'), 'hit', 'the stored answer is served again');
});
