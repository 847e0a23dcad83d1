// Routing on the wire, against real fake upstreams and one running service: how provider answers become attempts
// and client answers (statuses, envelopes, retry hints, timeouts, resets, bodies that are not JSON), what the upstream
// receives (OpenAI and Azure), embeddings, the x-svc-* headers on fallback and failure, bench state on /metrics.
// The routing decisions themselves (retry, backoff, bench, fallback, weights) are tested on the plugin in
// test/unit/plugins/router.test.ts.
import t, { type Test } from 'tap';
import { startFakeOpenAI, type Behaviour, type FakeOpenAI } from '../helpers/fake-openai.ts';
import { TEST_KEY, baseConfig, chatBody, openaiDeployment, postJson, startTestService } from '../helpers/service.ts';

interface Attempt {
  d: string;
  o: string;
  ms: number;
  st?: number;
  why?: string;
}

const attemptsOf = (res: Response): Attempt[] => JSON.parse(res.headers.get('x-svc-attempts') ?? 'null');

/** The attempt records, exactly as many as the pattern has, each matching it. */
function matchAttempts(t: Test, res: Response, pattern: Record<string, unknown>[]): Attempt[] {
  const attempts = attemptsOf(res);
  t.equal(attempts?.length, pattern.length, `${pattern.length} attempt record(s)`);
  t.match(attempts, pattern);
  return attempts;
}

async function fake(fallback: Behaviour = { type: 'ok' }): Promise<FakeOpenAI> {
  const f = await startFakeOpenAI(fallback);
  t.teardown(() => f.close());
  return f;
}

const up = await fake();
const primary = await fake({ type: 'error', status: 503 });
const backup = await fake();
const gone = await startFakeOpenAI();
await gone.close();

const azure = {
  id: 'az',
  provider: 'azure',
  base_url: up.url,
  deployment: 'mini',
  api_version: '2024-10-21',
  api_key: 'azure-secret',
  price: { input_per_mtok: 1, output_per_mtok: 2 },
};
const embeddingsPrice = { input_per_mtok: 0.02, output_per_mtok: 0 };
/** Benching stays off except where a test is about it, so one test's failures do not steer the next. */
const groups: Record<string, unknown>[] = [
  {
    name: 'pair',
    routing: { retries: 3, bench_ms: 0, max_backoff_ms: 10 },
    deployments: [openaiDeployment('a', up.url), openaiDeployment('b', up.url)],
  },
  {
    name: 'only',
    routing: { retries: 2, bench_ms: 0, max_backoff_ms: 10 },
    deployments: [openaiDeployment('only', up.url)],
  },
  { name: 'one', routing: { retries: 0, bench_ms: 0 }, deployments: [openaiDeployment('one', up.url)] },
  { name: 'slow', routing: { retries: 0, timeout_ms: 100 }, deployments: [openaiDeployment('slow', up.url)] },
  { name: 'gone', routing: { retries: 0 }, deployments: [openaiDeployment('gone', gone.url)] },
  {
    name: 'primary',
    fallback: 'backup',
    routing: { retries: 1, bench_ms: 0, max_backoff_ms: 10 },
    deployments: [openaiDeployment('p1', primary.url)],
  },
  { name: 'backup', routing: { retries: 0 }, deployments: [openaiDeployment('b1', backup.url)] },
  {
    name: 'benching',
    routing: { retries: 1, bench_ms: 60_000 },
    deployments: [openaiDeployment('x', up.url), openaiDeployment('y', up.url)],
  },
  { name: 'zero', deployments: [{ id: 'z', provider: 'mock', model: 'mock-z', weight: 0 }] },
  {
    name: 'keyless',
    deployments: [
      openaiDeployment('k', up.url, { api_key: '' }),
      { id: 'az-keyless', provider: 'azure', base_url: up.url, deployment: 'mini', api_version: '2024-10-21' },
    ],
  },
  {
    name: 'mixed',
    deployments: [
      { id: 'off', provider: 'mock', model: 'mock-off', weight: 0 },
      { id: 'on', provider: 'mock', model: 'mock-on', weight: 1 },
      openaiDeployment('nokey', up.url, { api_key: '' }),
    ],
  },
  { name: 'extras', deployments: [openaiDeployment('extra', up.url, { headers: { 'x-extra': 'yes' } })] },
  { name: 'az', deployments: [azure] },
  { name: 'az-model', deployments: [{ ...azure, id: 'az2', model: 'gpt-4o-mini' }] },
  {
    name: 'emb',
    routing: { retries: 1, bench_ms: 0 },
    deployments: [
      openaiDeployment('e1', up.url, { price: embeddingsPrice }),
      openaiDeployment('e2', up.url, { price: embeddingsPrice }),
    ],
  },
  // An output price that a chat estimate would charge: embeddings must not be priced with one.
  {
    name: 'emb-priced',
    deployments: [openaiDeployment('ep', up.url, { price: { input_per_mtok: 0.02, output_per_mtok: 10 } })],
  },
  { name: 'chat-only', deployments: [openaiDeployment('c1', up.url, { embeddings: false })] },
  {
    name: 'emb-mixed',
    deployments: [openaiDeployment('m1', up.url, { embeddings: false }), openaiDeployment('m2', up.url)],
  },
  {
    name: 'g',
    fallback: 'spare',
    routing: { retries: 1, bench_ms: 0, timeout_ms: 150, max_backoff_ms: 10 },
    deployments: [openaiDeployment('ga', up.url), openaiDeployment('gb', up.url)],
  },
  { name: 'spare', routing: { retries: 0, timeout_ms: 150 }, deployments: [openaiDeployment('s', up.url)] },
];
const svc = await startTestService(
  t,
  baseConfig({
    model_groups: groups.map((g) => ({ created_at: '2026-11-21T00:00:00Z', ...g })),
    keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: groups.map((g) => g.name) }],
    plugins: [{ use: 'auth' }, { use: 'router', config: { backoff_base_ms: 1 } }],
  }),
);
const { gatewayUrl } = svc;

const chat = (model: string, extra: Record<string, unknown> = {}) =>
  postJson(gatewayUrl, '/v1/chat/completions', chatBody({ model, ...extra }));

async function benchedIds(): Promise<string[]> {
  const m = (await (await fetch(`${svc.adminUrl}/metrics`)).json()) as any;
  return Object.keys(m.deployments.benched_until).sort();
}

t.test('retryable provider statuses become retryable attempts, and the other deployment answers', async (t) => {
  for (const status of [500, 502, 503, 529, 429, 408, 409]) {
    const before = up.requests.length;
    up.queue.push({ type: 'error', status });
    const res = await chat('pair');
    t.equal(res.status, 200, `${status}: served`);
    const body = (await res.json()) as any;
    t.equal(body.choices[0].message.content, 'Hello from fake');
    const attempts = matchAttempts(t, res, [{ o: 'retryable', st: status, why: `fake error ${status}` }, { o: 'ok' }]);
    t.not(attempts[0].d, attempts[1].d, `${status}: the second attempt used the other deployment`);
    t.equal(res.headers.get('x-svc-deployment'), attempts[1].d);
    t.equal(up.requests.length - before, 2, `${status}: the upstream saw two requests`);
    t.equal(up.requests[before].body.model, `model-${attempts[0].d}`);
    t.equal(up.requests[before + 1].body.model, `model-${attempts[1].d}`);
  }
});

t.test('401, 403 and 404 from a provider are failed attempts with its message', async (t) => {
  for (const status of [401, 403, 404]) {
    up.queue.push({
      type: 'error',
      status,
      envelope: { error: { message: `denied ${status}`, type: 'invalid_request_error', param: null, code: 'nope' } },
    });
    const res = await chat('pair');
    t.equal(res.status, 200, `${status}: served by the other deployment`);
    const attempts = matchAttempts(t, res, [{ o: 'failed', st: status, why: `denied ${status}` }, { o: 'ok' }]);
    t.not(attempts[0].d, attempts[1].d);
  }
});

t.test(
  'a retry hint from the provider (retry-after-ms, retry-after) is honoured and the same deployment retried',
  async (t) => {
    for (const headers of [{ 'retry-after-ms': '120' }, { 'retry-after': '30' }] as Record<string, string>[]) {
      const before = up.requests.length;
      up.queue.push({ type: 'error', status: 429, headers });
      const res = await chat('only');
      t.equal(res.status, 200);
      matchAttempts(t, res, [
        { d: 'only', o: 'retryable', st: 429 },
        { d: 'only', o: 'ok' },
      ]);
      t.equal(up.requests.length - before, 2, 'the upstream saw the first call and the retry');
    }
  },
);

t.test('when retries are exhausted the last provider error passes through', async (t) => {
  const envelope = {
    error: { message: 'The server is overloaded', type: 'server_error', param: null, code: 'overloaded' },
  };
  const before = up.requests.length;
  for (let i = 0; i < 3; i++) up.queue.push({ type: 'error', status: 503, envelope });
  const res = await chat('only');
  t.equal(res.status, 503);
  t.same(await res.json(), envelope, "the provider's envelope, unchanged");
  t.equal(up.requests.length - before, 3, 'first call plus two retries');
  matchAttempts(t, res, [
    { d: 'only', o: 'retryable', st: 503 },
    { d: 'only', o: 'retryable', st: 503 },
    { d: 'only', o: 'retryable', st: 503 },
  ]);
  t.equal(res.headers.get('x-svc-model-group'), 'only');
  t.equal(res.headers.get('x-svc-cost'), null, 'no cost on a failure');
  t.match(res.headers.get('x-svc-request-id'), /^[0-9a-f-]{36}$/);
});

t.test('a provider that does not answer in time is a 504 upstream_timeout', async (t) => {
  const before = up.requests.length;
  up.queue.push({ type: 'hang' });
  const started = performance.now();
  const res = await chat('slow');
  const elapsed = performance.now() - started;
  t.equal(res.status, 504);
  const body = (await res.json()) as any;
  t.same(body, { error: { message: body.error.message, type: 'server_error', param: null, code: 'upstream_timeout' } });
  const attempts = matchAttempts(t, res, [{ d: 'slow', o: 'timeout' }]);
  t.notOk('st' in attempts[0], 'no provider status on a timeout');
  // undici's header and body timers tick about every half second: a timeout fires between timeout_ms and about
  // timeout_ms + 1 s (docs/decisions.md, "Provider timeouts"). Not 30 s, not never. Real timers: no fake clock here.
  t.ok(attempts[0].ms >= 90 && attempts[0].ms < 1600, `attempt ended by the timeout (${attempts[0].ms} ms)`);
  t.ok(elapsed < 2000);
  t.equal(up.requests.length - before, 1);
});

t.test('a connection reset or a closed port is a 502 upstream_unreachable', async (t) => {
  up.queue.push({ type: 'reset' });
  const reset = await chat('one');
  t.equal(reset.status, 502);
  t.match(await reset.json(), {
    error: { type: 'server_error', param: null, code: 'upstream_unreachable', message: String },
  });
  const attempts = matchAttempts(t, reset, [{ d: 'one', o: 'retryable' }]);
  t.notOk('st' in attempts[0]);

  const closed = await chat('gone');
  t.equal(closed.status, 502);
  const body = (await closed.json()) as any;
  t.match(body, { error: { type: 'server_error', param: null, code: 'upstream_unreachable' } });
  t.match(body.error.message, /cannot reach provider/);
  matchAttempts(t, closed, [{ d: 'gone', o: 'retryable', why: /cannot reach provider/ }]);
});

t.test('a 2xx body that is not a JSON object is a 502 upstream_invalid_response', async (t) => {
  for (const behaviour of [
    { type: 'invalid-json' },
    { type: 'json', body: [1, 2, 3] },
    { type: 'json', body: 'just a string' },
  ] as Behaviour[]) {
    up.queue.push(behaviour);
    const res = await chat('one');
    t.equal(res.status, 502);
    t.match(await res.json(), { error: { type: 'server_error', param: null, code: 'upstream_invalid_response' } });
    matchAttempts(t, res, [{ d: 'one', o: 'failed', st: 200 }]);
  }
});

t.test('a 400 from the provider passes through with its envelope and is not retried', async (t) => {
  const envelope = {
    error: {
      message: "Invalid value for 'temperature'",
      type: 'invalid_request_error',
      param: 'temperature',
      code: 'invalid_value',
    },
  };
  const before = up.requests.length;
  up.queue.push({ type: 'error', status: 400, envelope });
  const res = await chat('pair', { temperature: 7 });
  t.equal(res.status, 400);
  t.same(await res.json(), envelope);
  t.equal(up.requests.length - before, 1, 'not retried');
  t.equal(up.requests[before].body.temperature, 7, 'the client field reached the provider');
  matchAttempts(t, res, [{ o: 'failed', st: 400, why: "Invalid value for 'temperature'" }]);
  t.equal(res.headers.get('x-svc-model-group'), 'pair');
});

t.test('provider errors without an OpenAI envelope: code upstream_error with their text', async (t) => {
  const before = up.requests.length;
  up.queue.push({ type: 'error', status: 422, text: 'unprocessable thing' });
  const plain4xx = await chat('pair');
  t.equal(plain4xx.status, 422, 'other 4xx statuses stop at once too');
  t.same(await plain4xx.json(), {
    error: { message: 'unprocessable thing', type: 'invalid_request_error', param: null, code: 'upstream_error' },
  });
  t.equal(up.requests.length - before, 1);

  up.queue.push({ type: 'error', status: 500, text: '  upstream exploded\n' });
  const plain5xx = await chat('one');
  t.equal(plain5xx.status, 500);
  t.same(await plain5xx.json(), {
    error: { message: 'upstream exploded', type: 'server_error', param: null, code: 'upstream_error' },
  });
  matchAttempts(t, plain5xx, [{ d: 'one', o: 'retryable', st: 500, why: 'upstream exploded' }]);

  up.queue.push({ type: 'json', status: 503, body: { message: 'maintenance window' } });
  const bare = await chat('one');
  t.equal(bare.status, 503);
  t.same(await bare.json(), {
    error: { message: 'maintenance window', type: 'server_error', param: null, code: 'upstream_error' },
  });
});

t.test(
  'fallback on the wire: the fallback group and deployment are named, its retry hint reaches the client',
  async (t) => {
    const res = await chat('primary');
    t.equal(res.status, 200);
    t.equal(res.headers.get('x-svc-model-group'), 'backup');
    t.equal(res.headers.get('x-svc-deployment'), 'b1');
    matchAttempts(t, res, [
      { d: 'p1', o: 'retryable', st: 503 },
      { d: 'p1', o: 'retryable', st: 503 },
      { d: 'b1', o: 'ok' },
    ]);
    t.equal(primary.requests.length, 2);
    t.equal(backup.requests.length, 1);
    t.equal(backup.requests[0].body.model, 'model-b1');
    t.equal(backup.requests[0].headers.authorization, 'Bearer upstream-key-b1');

    const envelope = {
      error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' },
    };
    primary.queue.push({ type: 'error', status: 500 }, { type: 'error', status: 500 });
    backup.queue.push({ type: 'error', status: 429, envelope, headers: { 'retry-after': '7' } });
    const failed = await chat('primary');
    t.equal(failed.status, 429, 'when the fallback group fails too, its last error is the answer');
    t.same(await failed.json(), envelope);
    t.equal(failed.headers.get('x-svc-model-group'), 'backup');
    matchAttempts(t, failed, [
      { d: 'p1', o: 'retryable', st: 500 },
      { d: 'p1', o: 'retryable', st: 500 },
      { d: 'b1', o: 'retryable', st: 429 },
    ]);
    t.equal(failed.headers.get('retry-after'), '7', "the provider's retry hint reaches the client");
    t.equal(failed.headers.get('retry-after-ms'), '7000');
  },
);

t.test('/metrics lists a benched deployment', async (t) => {
  up.queue.push({ type: 'error', status: 500 });
  const res = await chat('benching');
  t.equal(res.status, 200);
  const [failed] = matchAttempts(t, res, [{ o: 'retryable', st: 500 }, { o: 'ok' }]);
  t.same(await benchedIds(), [failed.d], 'the benched deployment, as every replica sees it');
});

t.test('weight 0 and key-less deployments are never chosen: 503 no_deployment_available', async (t) => {
  const before = up.requests.length;
  for (const group of ['zero', 'keyless']) {
    const res = await chat(group);
    t.equal(res.status, 503, `${group}: 503`);
    const body = (await res.json()) as any;
    t.same(body, {
      error: { message: body.error.message, type: 'server_error', param: null, code: 'no_deployment_available' },
    });
    t.match(body.error.message, group);
    t.equal(res.headers.get('x-svc-model-group'), group);
    t.equal(res.headers.get('x-svc-attempts'), null, 'no attempt was made');
    t.equal(res.headers.get('x-svc-deployment'), null);
  }
  for (let i = 0; i < 20; i++) t.equal((await chat('mixed')).headers.get('x-svc-deployment'), 'on');
  t.equal(up.requests.length, before, 'the key-less deployments were never called');
});

t.test('x-svc-attempts is ASCII JSON of {d, o, ms, st?, why?}', async (t) => {
  up.queue.push({
    type: 'error',
    status: 502,
    envelope: { error: { message: 'bad gateway über', type: 'server_error', param: null, code: null } },
  });
  const res = await chat('pair');
  t.equal(res.status, 200);
  const raw = res.headers.get('x-svc-attempts')!;
  t.match(raw, /\\u00fc/, 'non-ASCII in why is escaped so the header stays ASCII');
  const attempts = attemptsOf(res);
  t.equal(attempts.length, 2);
  const [failed, ok] = attempts;
  t.same(Object.keys(failed).sort(), ['d', 'ms', 'o', 'st', 'why'], 'startedAt stays in the trace');
  t.same(failed, { d: failed.d, o: 'retryable', ms: failed.ms, st: 502, why: 'bad gateway über' });
  t.same(Object.keys(ok).sort(), ['d', 'ms', 'o']);
  for (const a of attempts) {
    t.ok(Number.isInteger(a.ms) && a.ms >= 0, 'ms is a non-negative integer');
    t.ok(['a', 'b'].includes(a.d));
  }
});

t.test('the upstream receives the deployment model, its key and the client fields', async (t) => {
  const before = up.requests.length;
  const res = await chat('extras', {
    temperature: 0.2,
    max_tokens: 33,
    user: 'u-1',
    tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
  });
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-svc-deployment'), 'extra');
  t.equal(up.requests.length - before, 1);
  const r = up.requests[before];
  t.equal(r.method, 'POST');
  t.equal(r.path, '/v1/chat/completions');
  t.equal(r.headers.authorization, 'Bearer upstream-key-extra', "the deployment's key, never the gateway key");
  t.notOk(JSON.stringify(r.headers).includes(TEST_KEY));
  t.equal(r.headers['x-extra'], 'yes', 'deployment headers are sent');
  t.match(r.headers['content-type'], /^application\/json/);
  t.same(r.body, {
    model: 'model-extra',
    messages: [{ role: 'user', content: 'Hello' }],
    temperature: 0.2,
    max_tokens: 33,
    user: 'u-1',
    tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
  });
  t.notOk('stream_options' in r.body, 'no stream_options on a non-streamed call');
  const body = (await res.json()) as any;
  t.equal(body.usage.total_tokens, 15, "the provider's usage passes through");
});

t.test('Azure deployments use the deployment path, api-version and the api-key header', async (t) => {
  const before = up.requests.length;
  const res = await chat('az');
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-svc-deployment'), 'az');
  t.equal(res.headers.get('x-svc-cost'), '0.00002', '10 input and 5 output tokens at 1 and 2 USD per Mtok');
  const r = up.requests[before];
  t.equal(r.path, '/openai/deployments/mini/chat/completions?api-version=2024-10-21');
  t.equal(r.headers['api-key'], 'azure-secret');
  t.equal(r.headers.authorization, undefined, 'no Authorization header to Azure');
  t.notOk('model' in r.body, 'no model is sent when the deployment configures none');

  const withModel = await chat('az-model');
  t.equal(withModel.status, 200);
  t.equal(up.requests[before + 1].body.model, 'gpt-4o-mini');

  const emb = await postJson(gatewayUrl, '/v1/embeddings', { model: 'az', input: ['one', 'two'] });
  t.equal(emb.status, 200);
  const embBody = (await emb.json()) as any;
  t.equal(embBody.data.length, 2);
  t.same(embBody.data[1].embedding, [0.5, -0.25, 0.125]);
  t.equal(up.requests[before + 2].path, '/openai/deployments/mini/embeddings?api-version=2024-10-21');
  t.equal(up.requests[before + 2].headers['api-key'], 'azure-secret');
  t.same(up.requests[before + 2].body, { input: ['one', 'two'] });
});

t.test('embeddings are routed to OpenAI deployments and priced on input tokens', async (t) => {
  const before = up.requests.length;
  const res = await postJson(gatewayUrl, '/v1/embeddings', {
    model: 'emb',
    input: 'hello world',
    encoding_format: 'float',
  });
  t.equal(res.status, 200);
  const body = (await res.json()) as any;
  t.same(body, {
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding: [0.5, -0.25, 0.125] }],
    model: 'fake-embed',
    usage: { prompt_tokens: 10, total_tokens: 10 },
  });
  const d = res.headers.get('x-svc-deployment')!;
  t.equal(up.requests[before].path, '/v1/embeddings');
  t.same(up.requests[before].body, { model: `model-${d}`, input: 'hello world', encoding_format: 'float' });
  t.equal(up.requests[before].headers.authorization, `Bearer upstream-key-${d}`);
  t.equal(res.headers.get('x-svc-cost'), '0.0000002', '10 input tokens at 0.02 USD per Mtok');
  t.equal(res.headers.get('x-svc-cost-estimated'), 'false');

  // Embeddings follow the same retry rules.
  up.queue.push({ type: 'error', status: 500 });
  const retried = await postJson(gatewayUrl, '/v1/embeddings', { model: 'emb', input: ['a', 'b'] });
  t.equal(retried.status, 200);
  matchAttempts(t, retried, [{ o: 'retryable', st: 500 }, { o: 'ok' }]);
  t.equal(((await retried.json()) as any).data.length, 2);
});

t.test('embeddings ignore stream: true: the embeddings API answers as JSON, priced on its input tokens', async (t) => {
  const before = up.requests.length;
  const res = await postJson(gatewayUrl, '/v1/embeddings', {
    model: 'emb-priced',
    input: 'hello world',
    stream: true,
    stream_options: { include_usage: true },
  });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/, 'a JSON answer, not server-sent events');
  t.same(await res.json(), {
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding: [0.5, -0.25, 0.125] }],
    model: 'fake-embed',
    usage: { prompt_tokens: 10, total_tokens: 10 },
  });
  t.equal(up.requests.length - before, 1);
  t.equal(up.requests[before].path, '/v1/embeddings', 'the embeddings API was called, not chat completions');
  t.same(up.requests[before].body, { model: 'model-ep', input: 'hello world' }, 'the provider was not asked to stream');
  t.equal(res.headers.get('x-svc-cost'), '0.0000002', "the provider's 10 input tokens at 0.02 USD per Mtok");
  t.equal(res.headers.get('x-svc-cost-estimated'), 'false');
  matchAttempts(t, res, [{ d: 'ep', o: 'ok' }]);
});

t.test('a group whose deployments offer no embeddings API answers 400 embeddings_not_supported', async (t) => {
  const before = up.requests.length;
  const res = await postJson(gatewayUrl, '/v1/embeddings', { model: 'chat-only', input: 'hello' });
  t.equal(res.status, 400);
  t.same(await res.json(), {
    error: {
      message: "No deployment in model group 'chat-only' offers an embeddings API.",
      type: 'invalid_request_error',
      param: null,
      code: 'embeddings_not_supported',
    },
  });
  t.ok(res.headers.get('x-svc-request-id'));
  t.equal(res.headers.get('x-svc-model-group'), 'chat-only');
  t.equal(up.requests.length, before, 'nothing was sent upstream');
  t.equal((await chat('chat-only')).status, 200, 'chat on the same group still works');
  for (let i = 0; i < 5; i++) {
    const emb = await postJson(gatewayUrl, '/v1/embeddings', { model: 'emb-mixed', input: 'hello' });
    t.equal(emb.status, 200);
    t.equal(emb.headers.get('x-svc-deployment'), 'm2', 'in a mixed group embeddings go only where they are offered');
  }
});

t.test("the provider's JSON text passes through byte for byte", async (t) => {
  // The same with a plugin that has onResponse: test/unit/plugins/pipeline.test.ts.
  const text =
    '{ "id": "chatcmpl-raw",\n  "object": "chat.completion", "created": 1, "model": "m",\n  "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 0, "total_tokens": 3} }';
  up.queue.push({ type: 'invalid-json', text });
  const res = await chat('one');
  t.equal(res.status, 200);
  t.equal(await res.text(), text);
});

t.test(
  'x-svc-deployment names the last deployment tried on every failure after a provider attempt, streamed or not',
  async (t) => {
    const refusal = {
      error: {
        message: "Invalid value for 'temperature'",
        type: 'invalid_request_error',
        param: 'temperature',
        code: 'invalid_value',
      },
    };
    const overloaded = {
      error: { message: 'The server is overloaded', type: 'server_error', param: null, code: 'overloaded' },
    };
    const cases: { label: string; behaviour: Behaviour; status: number; code: string; attempts: number }[] = [
      {
        label: 'a provider 400, passed through at once',
        behaviour: { type: 'error', status: 400, envelope: refusal },
        status: 400,
        code: 'invalid_value',
        attempts: 1,
      },
      {
        label: 'provider 503s, the last passed through',
        behaviour: { type: 'error', status: 503, envelope: overloaded },
        status: 503,
        code: 'overloaded',
        attempts: 3,
      },
      {
        label: 'connection resets',
        behaviour: { type: 'reset' },
        status: 502,
        code: 'upstream_unreachable',
        attempts: 3,
      },
      {
        label: 'a 2xx body that is not JSON',
        behaviour: { type: 'invalid-json' },
        status: 502,
        code: 'upstream_invalid_response',
        attempts: 3,
      },
      {
        label: 'providers that do not answer',
        behaviour: { type: 'hang' },
        status: 504,
        code: 'upstream_timeout',
        attempts: 3,
      },
    ];
    t.teardown(() => {
      up.fallback = { type: 'ok' };
    });
    for (const stream of [false, true]) {
      for (const c of cases) {
        const label = `${stream ? 'streamed' : 'not streamed'}, ${c.label}`;
        up.fallback = c.behaviour;
        const before = up.requests.length;
        const res = await chat('g', { stream });
        t.equal(res.status, c.status, `${label}: ${c.status}`);
        const body = (await res.json()) as any;
        t.equal(body.error.code, c.code, `${label}: ${c.code}`);
        const attempts = attemptsOf(res);
        t.equal(attempts.length, c.attempts, `${label}: ${c.attempts} attempt(s)`);
        const last = attempts.at(-1)!.d;
        t.equal(
          res.headers.get('x-svc-deployment'),
          last,
          `${label}: x-svc-deployment is the last deployment tried (${last})`,
        );
        t.equal(up.requests.at(-1)!.body.model, `model-${last}`, `${label}: the last request upstream went to it`);
        t.equal(up.requests.length - before, c.attempts);
        t.equal(res.headers.get('x-svc-model-group'), c.attempts === 1 ? 'g' : 'spare');
      }
    }
  },
);
