// Anthropic deployments through the real gateway with the official `openai` SDK: what a client sees (it must not
// be able to tell Claude served it) and what the fake Anthropic API received.
import OpenAI from 'openai';
import t from 'tap';
import { getTrace, type StoredTrace } from '../../src/platform/store/repos/traces.ts';
import type { Queryable } from '../../src/platform/store/database.ts';
import {
  anthropicFixture,
  startFakeAnthropic,
  type AnthropicBehaviour,
  type FakeAnthropic,
} from '../helpers/fake-anthropic.ts';
import { TEST_KEY, baseConfig, startTestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

const CREATED = '2026-11-21T00:00:00Z';
// USD per Mtok; cached input priced apart so the cache split shows in the cost.
const PRICE = { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3 };

async function fake(fallback?: AnthropicBehaviour): Promise<FakeAnthropic> {
  const f = await startFakeAnthropic(fallback);
  t.teardown(() => f.close());
  return f;
}

const anthropicDeployment = (id: string, url: string, extra: Record<string, unknown> = {}) => ({
  id,
  provider: 'anthropic',
  base_url: url,
  api_key: 'k',
  model: 'claude-sonnet-4-5',
  price: PRICE,
  ...extra,
});

const up = await fake();
const flaky = await fake();
const limited = await fake({ type: 'error', status: 429, headers: { 'retry-after': '7' } });
const overloaded = await fake({ type: 'error', status: 529 });
const versioned = await fake();

const groups = [
  {
    name: 'claude',
    created_at: CREATED,
    deployments: [anthropicDeployment('claude-a', up.url, { default_max_tokens: 1000 })],
  },
  {
    name: 'claude-v',
    created_at: CREATED,
    deployments: [
      anthropicDeployment('claude-v', `${versioned.url}/v1/`, {
        anthropic_version: '2024-10-22',
        headers: { 'anthropic-beta': 'prompt-caching-2024-07-31' },
      }),
    ],
  },
  {
    name: 'flaky',
    created_at: CREATED,
    routing: { retries: 1, bench_ms: 0, max_backoff_ms: 50 },
    deployments: [anthropicDeployment('flaky-a', flaky.url)],
  },
  {
    name: 'limited',
    created_at: CREATED,
    fallback: 'backup',
    routing: { retries: 0 },
    deployments: [anthropicDeployment('limited-a', limited.url)],
  },
  {
    name: 'limited-alone',
    created_at: CREATED,
    routing: { retries: 0 },
    deployments: [anthropicDeployment('limited-b', limited.url)],
  },
  { name: 'backup', created_at: CREATED, deployments: [anthropicDeployment('backup-a', up.url)] },
  {
    name: 'overloaded',
    created_at: CREATED,
    routing: { retries: 1, bench_ms: 0, max_backoff_ms: 20 },
    deployments: [anthropicDeployment('over-a', overloaded.url)],
  },
  { name: 'nokey', created_at: CREATED, deployments: [anthropicDeployment('nokey-a', up.url, { api_key: '' })] },
];

const svc = await startTestService(
  t,
  baseConfig({
    model_groups: groups,
    keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: groups.map((g) => g.name) }],
    plugins: [{ use: 'auth' }, { use: 'router', config: { backoff_base_ms: 1 } }, { use: 'tracing' }],
  }),
);
const db: Queryable = svc.service.db;
const client = new OpenAI({ baseURL: `${svc.gatewayUrl}/v1`, apiKey: TEST_KEY, maxRetries: 0, timeout: 10_000 });
const hello = [{ role: 'user' as const, content: 'Hello' }];

interface Attempt {
  d: string;
  o: string;
  st?: number;
  why?: string;
}
const attemptsOf = (res: Response): Attempt[] => JSON.parse(res.headers.get('x-svc-attempts') ?? '[]');
const lastRequest = (f: FakeAnthropic) => f.requests.at(-1)!;

/** The error `fn` rejects with; resolving fails the test. */
const rejection = (fn: () => Promise<unknown>): Promise<any> =>
  fn().then(
    () => Promise.reject(new Error('expected an error')),
    (err: unknown) => err,
  );

function traceOf(id: string): Promise<StoredTrace> {
  return waitFor(`trace ${id} stored`, () => getTrace(db, 'default', id), 15_000);
}

/** The fixture's usage by the rule: 21 input + 1024 cache reads + 188 cache writes; 12 output. */
const TEXT_USAGE = {
  prompt_tokens: 1233,
  completion_tokens: 12,
  total_tokens: 1245,
  prompt_tokens_details: { cached_tokens: 1024, cache_creation_tokens: 188 },
};
const TEXT_COST = ((1233 - 1024) * 3 + 1024 * 0.3 + 12 * 15) / 1e6;

t.test('plain chat: content, finish_reason, usage by the rule, cost, and the request Anthropic got', async (t) => {
  const { data, response } = await client.chat.completions.create({ model: 'claude', messages: hello }).withResponse();
  t.equal(data.object, 'chat.completion');
  t.equal(data.id, 'msg_01XFDUDYJgAACzvnptvVoYEL');
  t.equal(data.model, 'claude-sonnet-4-5-20250929');
  t.equal(data.choices[0].message.role, 'assistant');
  t.equal(data.choices[0].message.content, 'Hello! How can I help you today?');
  t.equal(data.choices[0].finish_reason, 'stop');
  t.same(data.usage, TEXT_USAGE);
  t.equal(response.headers.get('x-svc-deployment'), 'claude-a');
  t.equal(response.headers.get('x-svc-cost-estimated'), 'false');
  t.ok(
    Math.abs(Number(response.headers.get('x-svc-cost')) - TEXT_COST) < 1e-12,
    `cost ${response.headers.get('x-svc-cost')} = ${TEXT_COST}`,
  );
  const sent = lastRequest(up);
  t.equal(sent.method, 'POST');
  t.equal(sent.path, '/v1/messages');
  t.equal(sent.headers['x-api-key'], 'k');
  t.equal(sent.headers['anthropic-version'], '2023-06-01');
  t.equal(sent.headers.authorization, undefined, 'no bearer header');
  t.same(sent.body, {
    model: 'claude-sonnet-4-5',
    max_tokens: 1000,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
  });
});

t.test('anthropic_version, extra headers and a base_url ending in /v1', async (t) => {
  await client.chat.completions.create({ model: 'claude-v', messages: hello, max_tokens: 77 });
  const sent = lastRequest(versioned);
  t.equal(sent.path, '/v1/messages');
  t.equal(sent.headers['anthropic-version'], '2024-10-22');
  t.equal(sent.headers['anthropic-beta'], 'prompt-caching-2024-07-31');
  t.equal(sent.body.max_tokens, 77);
});

t.test('system prompt, stop, temperature', async (t) => {
  up.queue.push({ type: 'ok', json: 'stop-sequence-response.json' });
  const data = await client.chat.completions.create({
    model: 'claude',
    messages: [
      { role: 'system', content: 'Count.' },
      { role: 'user', content: 'Count to ten' },
    ],
    stop: [', 5'],
    temperature: 1.5,
    max_completion_tokens: 50,
  });
  t.equal(data.choices[0].message.content, '1, 2, 3, 4');
  t.equal(data.choices[0].finish_reason, 'stop');
  const sent = lastRequest(up).body;
  t.same(sent.system, [{ type: 'text', text: 'Count.' }]);
  t.same(sent.stop_sequences, [', 5']);
  t.equal(sent.temperature, 1, 'clamped to Anthropic range');
  t.equal(sent.max_tokens, 50);
});

t.test('image input: data URL and http URL', async (t) => {
  await client.chat.completions.create({
    model: 'claude',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare' },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQSkZJRg==' } },
          { type: 'image_url', image_url: { url: 'https://upload.example.org/cat.png' } },
        ],
      },
    ],
  });
  t.same(lastRequest(up).body.messages[0].content, [
    { type: 'text', text: 'Compare' },
    { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQSkZJRg==' } },
    { type: 'image', source: { type: 'url', url: 'https://upload.example.org/cat.png' } },
  ]);
});

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
};

t.test('parallel tool calls, not streamed', async (t) => {
  up.queue.push({ type: 'ok', json: 'parallel-tools-response.json' });
  const data = await client.chat.completions.create({
    model: 'claude',
    messages: hello,
    tools: [weatherTool],
    tool_choice: 'required',
    parallel_tool_calls: false,
  });
  const message = data.choices[0].message;
  t.equal(data.choices[0].finish_reason, 'tool_calls');
  t.equal(message.tool_calls!.length, 2);
  t.same(
    message.tool_calls!.map((c: any) => [c.id, c.type, c.function.name, JSON.parse(c.function.arguments)]),
    [
      ['toolu_01A09q90qw90lq917835lq9', 'function', 'get_weather', { location: 'Paris, France', unit: 'celsius' }],
      ['toolu_01B7dTnqJ3yRkT4bZ8cXwN2m', 'function', 'get_weather', { location: 'Tokyo, Japan', unit: 'celsius' }],
    ],
  );
  t.same(data.usage, {
    prompt_tokens: 412,
    completion_tokens: 121,
    total_tokens: 533,
    prompt_tokens_details: { cached_tokens: 0 },
  });
  const sent = lastRequest(up).body;
  t.same(sent.tools, [{ name: 'get_weather', description: 'Weather', input_schema: weatherTool.function.parameters }]);
  t.same(sent.tool_choice, { type: 'any', disable_parallel_tool_use: true });
});

t.test('parallel tool calls, streamed: the SDK assembles both calls', async (t) => {
  up.queue.push({ type: 'sse', fixture: 'parallel-tools-stream.sse' });
  const stream = client.chat.completions.stream({
    model: 'claude',
    messages: hello,
    tools: [weatherTool],
    stream_options: { include_usage: true },
  });
  const final = await stream.finalChatCompletion();
  const choice = final.choices[0];
  t.equal(choice.finish_reason, 'tool_calls');
  t.equal(choice.message.content, "I'll check the weather in both cities.");
  t.same(
    choice.message.tool_calls!.map((c: any) => [c.id, c.function.name, JSON.parse(c.function.arguments)]),
    [
      ['toolu_01T1x1fJ34qAmk2tNTrN7Up6', 'get_weather', { location: 'Paris, France', unit: 'celsius' }],
      ['toolu_01Fq8pT7rXmW2bN5vZ3kL9dH', 'get_weather', { location: 'Tokyo, Japan', unit: 'celsius' }],
    ],
  );
  t.same(final.usage, {
    prompt_tokens: 472,
    completion_tokens: 89,
    total_tokens: 561,
    prompt_tokens_details: { cached_tokens: 0 },
  });
  t.equal(lastRequest(up).body.stream, true);
});

t.test('tool results round trip: the recorded conversation reaches Anthropic as the fixture says', async (t) => {
  const { openai, anthropic } = anthropicFixture('tool-round-trip.request.json');
  const data = await client.chat.completions.create({ ...openai, model: 'claude' });
  t.equal(data.choices[0].message.content, 'Hello! How can I help you today?');
  t.same(lastRequest(up).body, anthropic);
});

t.test('stop reasons: max_tokens → length, refusal → content_filter', async (t) => {
  up.queue.push({ type: 'ok', json: 'max-tokens-response.json' });
  const cut = await client.chat.completions.create({ model: 'claude', messages: hello, max_tokens: 8 });
  t.equal(cut.choices[0].finish_reason, 'length');
  up.queue.push({ type: 'ok', json: 'refusal-response.json' });
  const refused = await client.chat.completions.create({ model: 'claude', messages: hello });
  t.equal(refused.choices[0].finish_reason, 'content_filter');
});

t.test('response_format json_schema: the answer is JSON content, finish_reason stop', async (t) => {
  up.queue.push({ type: 'ok', json: 'json-tool-response.json' });
  const schema = {
    type: 'object',
    properties: { city: { type: 'string' }, population: { type: 'integer' } },
    required: ['city'],
  };
  const data = await client.chat.completions.create({
    model: 'claude',
    messages: hello,
    response_format: { type: 'json_schema', json_schema: { name: 'city', schema } },
  });
  t.same(JSON.parse(data.choices[0].message.content!), { city: 'Paris', population: 2102650 });
  t.equal(data.choices[0].finish_reason, 'stop');
  t.equal(data.choices[0].message.tool_calls, undefined);
  t.same(lastRequest(up).body.tool_choice, { type: 'tool', name: 'svc_json_response' });
});

t.test('streamed chat: role first, text, finish, usage chunk by the rule; the trace is costed from it', async (t) => {
  const { data: stream, response } = await client.chat.completions
    .create({ model: 'claude', messages: hello, stream: true, stream_options: { include_usage: true } })
    .withResponse();
  const chunks: any[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  t.equal(chunks[0].choices[0].delta.role, 'assistant');
  t.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join(''), 'Hello! How can I help you today?');
  t.equal(chunks.at(-2).choices[0].finish_reason, 'stop');
  t.same(chunks.at(-1).choices, []);
  t.same(chunks.at(-1).usage, TEXT_USAGE);
  t.equal(response.headers.get('x-svc-cost-estimated'), 'true');
  const trace = await traceOf(response.headers.get('x-svc-request-id')!);
  t.equal(trace.tokens, 1245);
  t.ok(Math.abs(trace.cost - TEXT_COST) < 1e-12, `trace cost ${trace.cost} = price × usage ${TEXT_COST}`);
});

t.test('streamed chat without include_usage: no usage chunk reaches the client', async (t) => {
  const stream = await client.chat.completions.create({ model: 'claude', messages: hello, stream: true });
  const chunks: any[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  t.notOk(
    chunks.some((c) => c.usage),
    'no usage',
  );
  t.equal(chunks.at(-1).choices[0].finish_reason, 'stop');
});

t.test('an in-stream overloaded_error after the first bytes: the SDK sees upstream_stream_error', async (t) => {
  up.queue.push({ type: 'sse', fixture: 'overloaded-stream.sse' });
  const stream = await client.chat.completions.create({ model: 'claude', messages: hello, stream: true });
  let text = '';
  const err = await rejection(async () => {
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  });
  t.equal(text, 'Let me think about', 'chunks before the error arrived');
  t.ok(err instanceof OpenAI.APIError);
  t.equal(err.code, 'upstream_stream_error');
  t.equal(err.type, 'server_error');
  t.match(err.message, /stream interrupted: overloaded_error: Overloaded/);
});

t.test('overloaded_error as the first stream event is retried before anything is sent', async (t) => {
  flaky.queue.push({ type: 'sse', fixture: 'overloaded-first-stream.sse' });
  const { data: stream, response } = await client.chat.completions
    .create({ model: 'flaky', messages: hello, stream: true })
    .withResponse();
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  t.equal(text, 'Hello! How can I help you today?');
  t.match(attemptsOf(response), [
    { d: 'flaky-a', o: 'retryable', st: 529 },
    { d: 'flaky-a', o: 'ok' },
  ]);
});

t.test('529 overloaded is retried', async (t) => {
  flaky.queue.push({ type: 'error', status: 529, headers: { 'retry-after': '0' } });
  const { data, response } = await client.chat.completions.create({ model: 'flaky', messages: hello }).withResponse();
  t.equal(data.choices[0].message.content, 'Hello! How can I help you today?');
  t.same(
    attemptsOf(response).map((a) => [a.d, a.o, a.st, a.why]),
    [
      ['flaky-a', 'retryable', 529, 'Overloaded'],
      ['flaky-a', 'ok', undefined, undefined],
    ],
  );
});

t.test('529 on every attempt: the client gets 529 with an OpenAI envelope', async (t) => {
  const before = overloaded.requests.length;
  const err = await rejection(() => client.chat.completions.create({ model: 'overloaded', messages: hello }));
  t.ok(err instanceof OpenAI.APIError);
  t.equal(err.status, 529);
  t.equal(err.type, 'server_error');
  t.equal(err.code, 'overloaded_error');
  t.equal(err.message, '529 Overloaded');
  t.equal(overloaded.requests.length - before, 2, 'tried twice (retries: 1)');
});

t.test('429 falls back to the fallback group', async (t) => {
  const { data, response } = await client.chat.completions.create({ model: 'limited', messages: hello }).withResponse();
  t.equal(data.choices[0].message.content, 'Hello! How can I help you today?');
  t.equal(response.headers.get('x-svc-model-group'), 'backup');
  const attempts = attemptsOf(response);
  t.match(attempts, [
    { d: 'limited-a', o: 'retryable', st: 429 },
    { d: 'backup-a', o: 'ok' },
  ]);
  t.match(attempts[0].why, /would exceed the rate limit/);
});

t.test('429 without fallback: status, OpenAI envelope and retry-after reach the client', async (t) => {
  const res = await fetch(`${svc.gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify({ model: 'limited-alone', messages: hello }),
  });
  t.equal(res.status, 429);
  t.equal(res.headers.get('retry-after'), '7');
  const body = await res.json();
  t.same(body, {
    error: {
      message: anthropicFixture('error-429.json').error.message,
      type: 'rate_limit_error',
      param: null,
      code: 'rate_limit_error',
    },
  });
});

t.test('400 passes through with its status, as an OpenAI envelope, and is not retried', async (t) => {
  flaky.queue.push({ type: 'error', status: 400 });
  const before = flaky.requests.length;
  const err = await rejection(() => client.chat.completions.create({ model: 'flaky', messages: hello }));
  t.ok(err instanceof OpenAI.BadRequestError);
  t.equal(err.status, 400);
  t.equal(err.type, 'invalid_request_error');
  t.equal(err.code, 'invalid_request_error');
  t.equal(err.error.message, anthropicFixture('error-400.json').error.message);
  t.equal(err.param, null);
  t.equal(flaky.requests.length - before, 1, 'one attempt only');
});

t.test('a request Anthropic cannot take is a 400 invalid_request from the gateway', async (t) => {
  const err = await rejection(() => client.chat.completions.create({ model: 'claude', messages: hello, n: 2 }));
  t.equal(err.status, 400);
  t.equal(err.code, 'invalid_request');
  t.match(err.message, /n > 1/);
});

t.test('embeddings on an anthropic-only group: 400 embeddings_not_supported', async (t) => {
  const err = await rejection(() => client.embeddings.create({ model: 'claude', input: 'hi' }));
  t.equal(err.status, 400);
  t.equal(err.code, 'embeddings_not_supported');
});

t.test('a deployment without api_key takes no traffic', async (t) => {
  const before = up.requests.length;
  const err = await rejection(() => client.chat.completions.create({ model: 'nokey', messages: hello }));
  t.equal(err.status, 503);
  t.equal(err.code, 'no_deployment_available');
  t.equal(up.requests.length, before);
});

t.test('a stream cut before message_stop ends with upstream_stream_error', async (t) => {
  up.queue.push({ type: 'sse', fixture: 'text-stream.sse', cutAfter: 5 });
  const stream = await client.chat.completions.create({ model: 'claude', messages: hello, stream: true });
  let text = '';
  const err = await rejection(async () => {
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  });
  t.equal(text, 'Hello! How can I', 'the text before the cut arrived');
  t.equal(err.code, 'upstream_stream_error');
  t.match(err.message, /stream interrupted/);
});

t.test('a 2xx body that is not a message: 502 upstream_invalid_response', async (t) => {
  flaky.queue.push({ type: 'json', body: { unexpected: true } }, { type: 'json', body: { unexpected: true } });
  const err = await rejection(() => client.chat.completions.create({ model: 'flaky', messages: hello }));
  t.equal(err.status, 502);
  t.equal(err.code, 'upstream_invalid_response');
});
