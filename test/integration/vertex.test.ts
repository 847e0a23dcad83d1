// Google Vertex AI behind the gateway, seen through the official `openai` SDK: Gemini chat and streams, tools,
// stop reasons, usage by the rule, costing, a blocked prompt, service-account OAuth (cached, refreshed on 401), and
// Google errors retried, fallen back or passed through per the routing policy.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import t, { type Test } from 'tap';
import { getTrace, type StoredTrace } from '../../src/platform/store/repos/traces.ts';
import {
  startFakeVertex,
  vertexDeployment,
  vertexFixture,
  type FakeVertex,
  type VertexBehaviour,
} from '../helpers/fake-vertex.ts';
import { TEST_KEY, baseConfig, startTestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

const created = '2026-11-21T00:00:00Z';
// Round prices make costs exact: USD per token 1e-6 input, 0.5e-6 cached input, 2e-6 output.
const PRICE = { input_per_mtok: 1, cached_input_per_mtok: 0.5, output_per_mtok: 2 };

async function fake(fallback?: VertexBehaviour): Promise<FakeVertex> {
  const f = await startFakeVertex(fallback);
  t.teardown(() => f.close());
  return f;
}

const up = await fake();
const busy = await fake({ type: 'error', status: 429 });
const bad = await fake({ type: 'error', status: 400 });
const claudeUp = await fake({ type: 'json', body: vertexFixture('claude-message.json') });
const credentialsDir = mkdtempSync(join(tmpdir(), 'svc-vertex-sa-'));
t.teardown(() => rmSync(credentialsDir, { recursive: true, force: true }));
writeFileSync(join(credentialsDir, 'sa.json'), up.account.json);

const groups = [
  { name: 'gemini', created_at: created, deployments: [vertexDeployment('gem', up, { price: PRICE })] },
  {
    name: 'from-file',
    created_at: created,
    deployments: [
      vertexDeployment('gem-file', up, {
        gcp: {
          project: 'test-project',
          location: 'global',
          credentials_file: join(credentialsDir, 'sa.json'),
          token_url: up.tokenUrl,
        },
      }),
    ],
  },
  // The busy deployment is chosen first (weights), answers 429 RESOURCE_EXHAUSTED; the spare one serves.
  {
    name: 'retry',
    created_at: created,
    routing: { retries: 1, bench_ms: 0 },
    deployments: [vertexDeployment('busy', busy, { weight: 1e6 }), vertexDeployment('spare', up, { weight: 1e-6 })],
  },
  {
    name: 'limited',
    created_at: created,
    routing: { retries: 0, bench_ms: 0 },
    fallback: 'gemini',
    deployments: [vertexDeployment('limited-busy', busy)],
  },
  { name: 'bad', created_at: created, routing: { retries: 2 }, deployments: [vertexDeployment('bad-up', bad)] },
  {
    name: 'claude',
    created_at: created,
    deployments: [
      vertexDeployment('claude-vertex', claudeUp, {
        model: 'claude-sonnet-4-5@20250929',
        default_max_tokens: 1024,
        gcp: {
          project: 'test-project',
          location: 'us-east5',
          credentials_json: claudeUp.account.json,
          token_url: claudeUp.tokenUrl,
        },
      }),
    ],
  },
  {
    name: 'no-creds',
    created_at: created,
    deployments: [vertexDeployment('no-creds', up, { gcp: { project: 'p', location: 'us-central1' } })],
  },
];
const svc = await startTestService(
  t,
  baseConfig({
    model_groups: groups,
    keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: groups.map((g) => g.name) }],
    plugins: [{ use: 'auth' }, { use: 'router', config: { backoff_base_ms: 1 } }, { use: 'tracing' }],
  }),
);

const client = new OpenAI({ baseURL: `${svc.gatewayUrl}/v1`, apiKey: TEST_KEY, maxRetries: 0, timeout: 10_000 });
const GEMINI_PATH = '/v1/projects/test-project/locations/us-central1/publishers/google/models/gemini-2.5-flash';
const attemptsOf = (res: Response) => JSON.parse(res.headers.get('x-svc-attempts') ?? '[]');
const last = (f: FakeVertex) => f.requests.at(-1)!;

function traceOf(id: string): Promise<StoredTrace> {
  return waitFor(`trace ${id} stored`, () => getTrace(svc.service.db, 'default', id));
}

const near = (t: Test, actual: number, expected: number, message: string) =>
  t.ok(Math.abs(actual - expected) < 1e-12, `${message} (${actual} vs ${expected})`);

t.test('plain chat: text, usage by the rule, cost from it, one OAuth token for many requests', async (t) => {
  const { data, response } = await client.chat.completions
    .create({ model: 'gemini', messages: [{ role: 'user', content: 'Capital of France?' }] })
    .withResponse();
  t.equal(data.object, 'chat.completion');
  t.equal(data.id, 'chatcmpl-gD8jab2mFv6d1dkP7qKx4Ak');
  t.equal(data.model, 'gemini-2.5-flash');
  t.equal(data.choices[0].message.content, 'Paris is the capital of France.');
  t.equal(data.choices[0].finish_reason, 'stop');
  // promptTokenCount 120 (100 cached), candidates 8 + thoughts 50.
  t.same(data.usage, {
    prompt_tokens: 120,
    completion_tokens: 58,
    total_tokens: 178,
    prompt_tokens_details: { cached_tokens: 100 },
    completion_tokens_details: { reasoning_tokens: 50 },
  });
  t.equal(response.headers.get('x-svc-cost'), String((20 * 1 + 100 * 0.5 + 58 * 2) / 1e6));
  t.equal(response.headers.get('x-svc-deployment'), 'gem');
  t.equal(last(up).path, `${GEMINI_PATH}:generateContent`);
  t.same(last(up).body, { contents: [{ role: 'user', parts: [{ text: 'Capital of France?' }] }] });
  t.match(last(up).headers.authorization, /^Bearer ya29\.fake-access-token-\d+$/);
  const fetches = up.tokenFetches;
  for (let i = 0; i < 3; i++)
    await client.chat.completions.create({ model: 'gemini', messages: [{ role: 'user', content: `again ${i}` }] });
  t.equal(up.tokenFetches, fetches, 'the cached token served the later requests');
  t.equal(up.tokenFetches, 1, 'one token fetch so far');
  t.same(up.tokenRejections, [], 'every JWT assertion verified with the service account public key');
});

t.test('credentials_file and the global location', async (t) => {
  const data = await client.chat.completions.create({
    model: 'from-file',
    messages: [{ role: 'user', content: 'Hi' }],
  });
  t.equal(data.choices[0].message.content, 'Paris is the capital of France.');
  t.equal(
    last(up).path,
    '/v1/projects/test-project/locations/global/publishers/google/models/gemini-2.5-flash:generateContent',
  );
});

t.test('system prompt, image parts and generation settings reach Vertex in its shape', async (t) => {
  await client.chat.completions.create({
    model: 'gemini',
    messages: [
      { role: 'system', content: 'You are terse.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/photo.jpg' } },
        ],
      },
    ],
    max_tokens: 64,
    temperature: 0.3,
    stop: ['\n\n'],
  });
  t.same(last(up).body, {
    contents: [
      {
        role: 'user',
        parts: [
          { text: 'What is this?' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/photo.jpg' } },
        ],
      },
    ],
    systemInstruction: { parts: [{ text: 'You are terse.' }] },
    generationConfig: { maxOutputTokens: 64, temperature: 0.3, stopSequences: ['\n\n'] },
  });
});

const tools = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
        additionalProperties: false,
      },
      strict: true,
    },
  },
  {
    type: 'function' as const,
    function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } },
  },
];

t.test('parallel tool calls, not streamed, and the tool results round trip by function name', async (t) => {
  up.queue.push({ type: 'json', body: vertexFixture('generate-tools.json') });
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather and time in Paris?' }];
  const first = await client.chat.completions.create({ model: 'gemini', messages, tools, tool_choice: 'auto' });
  t.same(last(up).body.tools, [
    {
      functionDeclarations: [
        {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
        { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } },
      ],
    },
  ]);
  t.same(last(up).body.toolConfig, { functionCallingConfig: { mode: 'AUTO' } });
  const choice = first.choices[0];
  t.equal(choice.finish_reason, 'tool_calls');
  const calls = choice.message.tool_calls! as OpenAI.ChatCompletionMessageFunctionToolCall[];
  t.same(
    calls.map((c) => c.function.name),
    ['get_weather', 'get_time'],
  );
  t.ok(calls.every((c) => /^call_[A-Za-z0-9]{24}$/.test(c.id)));
  messages.push(choice.message as OpenAI.ChatCompletionMessageParam);
  // Results in the other order: matched by id, sent by name.
  messages.push({ role: 'tool', tool_call_id: calls[1].id, content: '14:05' });
  messages.push({ role: 'tool', tool_call_id: calls[0].id, content: '{"temp_c":21,"sky":"clear"}' });
  const second = await client.chat.completions.create({ model: 'gemini', messages, tools });
  t.equal(second.choices[0].message.content, 'Paris is the capital of France.');
  t.same(last(up).body.contents, [
    { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
    {
      role: 'model',
      parts: [
        { functionCall: { name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } } },
        { functionCall: { name: 'get_time', args: { tz: 'Europe/Paris' } } },
      ],
    },
    {
      role: 'user',
      parts: [
        { functionResponse: { name: 'get_time', response: { output: '14:05' } } },
        { functionResponse: { name: 'get_weather', response: { temp_c: 21, sky: 'clear' } } },
      ],
    },
  ]);
});

t.test('parallel tool calls streamed: indices 0..n-1, whole arguments, finish tool_calls', async (t) => {
  up.queue.push({ type: 'sse', events: vertexFixture('stream-tools.json') });
  const stream = await client.chat.completions.create({
    model: 'gemini',
    messages: [{ role: 'user', content: 'Weather in Paris and Rome?' }],
    tools,
    tool_choice: 'required',
    stream: true,
  });
  const calls: { id?: string; name?: string; args: string }[] = [];
  let text = '';
  let finish: string | null = null;
  let first = true;
  for await (const chunk of stream) {
    const c = chunk.choices[0];
    if (!c) continue;
    if (first) t.equal(c.delta.role, 'assistant', 'first chunk carries the role');
    first = false;
    text += c.delta.content ?? '';
    for (const call of c.delta.tool_calls ?? []) {
      calls[call.index] ??= { args: '' };
      if (call.id) calls[call.index].id = call.id;
      if (call.function?.name) calls[call.index].name = call.function.name;
      calls[call.index].args += call.function?.arguments ?? '';
    }
    finish = c.finish_reason ?? finish;
  }
  t.equal(last(up).path, `${GEMINI_PATH}:streamGenerateContent?alt=sse`);
  t.same(last(up).body.toolConfig, { functionCallingConfig: { mode: 'ANY' } });
  t.equal(text, 'Checking both.');
  t.same(
    calls.map((c) => [c.name, JSON.parse(c.args)]),
    [
      ['get_weather', { city: 'Paris' }],
      ['get_weather', { city: 'Rome' }],
      ['get_time', { tz: 'Europe/Rome' }],
    ],
  );
  t.equal(new Set(calls.map((c) => c.id)).size, 3);
  t.equal(finish, 'tool_calls');
});

t.test('streamed text with include_usage: usage chunk by the rule, costed from real usage', async (t) => {
  up.queue.push({ type: 'sse', events: vertexFixture('stream-text.json') });
  const { data: stream, response } = await client.chat.completions
    .create({
      model: 'gemini',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    .withResponse();
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  t.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'Hello from Gemini.');
  t.equal(chunks.at(-2)!.choices[0].finish_reason, 'stop');
  t.same(chunks.at(-1)!.choices, []);
  const usage = {
    prompt_tokens: 40,
    completion_tokens: 36,
    total_tokens: 76,
    prompt_tokens_details: { cached_tokens: 30 },
    completion_tokens_details: { reasoning_tokens: 30 },
  };
  t.same(chunks.at(-1)!.usage, usage);
  for (const c of chunks.slice(0, -1)) t.notOk(c.usage, 'usage only on the last chunk');
  t.equal(response.headers.get('x-svc-cost-estimated'), 'true');
  t.ok(Number(response.headers.get('x-svc-cost')) > 0, 'admission estimate in x-svc-cost');
  const trace = await traceOf(response.headers.get('x-svc-request-id')!);
  t.equal(trace.tokens, 76);
  near(t, trace.cost, (10 * 1 + 30 * 0.5 + 36 * 2) / 1e6, 'trace cost from the real streamed usage');
});

t.test('streamed without include_usage: no usage reaches the client', async (t) => {
  up.queue.push({ type: 'sse', events: vertexFixture('stream-text.json') });
  const stream = await client.chat.completions.create({
    model: 'gemini',
    messages: [{ role: 'user', content: 'Hello' }],
    stream: true,
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  t.ok(chunks.every((c) => !c.usage));
  t.equal(chunks.at(-1)!.choices[0].finish_reason, 'stop');
});

t.test('stop reasons: MAX_TOKENS → length, SAFETY → content_filter', async (t) => {
  up.queue.push(
    { type: 'json', body: vertexFixture('generate-max-tokens.json') },
    { type: 'json', body: vertexFixture('generate-safety.json') },
  );
  const length = await client.chat.completions.create({
    model: 'gemini',
    messages: [{ role: 'user', content: 'Tell a story' }],
    max_tokens: 3,
  });
  t.equal(length.choices[0].finish_reason, 'length');
  t.equal(length.choices[0].message.content, 'Once upon a');
  const filtered = await client.chat.completions.create({
    model: 'gemini',
    messages: [{ role: 'user', content: 'Something unsafe' }],
  });
  t.equal(filtered.choices[0].finish_reason, 'content_filter');
});

t.test('prompt blocked: 200 with finish_reason content_filter and empty content, streamed or not', async (t) => {
  up.queue.push({ type: 'json', body: vertexFixture('prompt-blocked.json') });
  const data = await client.chat.completions.create({
    model: 'gemini',
    messages: [{ role: 'user', content: 'blocked' }],
  });
  t.equal(data.choices[0].finish_reason, 'content_filter');
  t.equal(data.choices[0].message.content, '');
  t.same(data.usage, {
    prompt_tokens: 14,
    completion_tokens: 0,
    total_tokens: 14,
    prompt_tokens_details: { cached_tokens: 0 },
  });
  up.queue.push({ type: 'sse', events: [vertexFixture('prompt-blocked.json')] });
  const stream = await client.chat.completions.create({
    model: 'gemini',
    messages: [{ role: 'user', content: 'blocked' }],
    stream: true,
  });
  const finishes = [];
  for await (const chunk of stream) finishes.push(chunk.choices[0]?.finish_reason);
  t.same(finishes, [null, 'content_filter']);
});

t.test('a stream cut upstream ends with upstream_stream_error', async (t) => {
  up.queue.push({ type: 'sse', events: vertexFixture('stream-text.json'), cutAfter: 2 });
  const stream = await client.chat.completions.create({
    model: 'gemini',
    messages: [{ role: 'user', content: 'Hello' }],
    stream: true,
  });
  let seen = 0;
  await t.rejects(
    async () => {
      for await (const _ of stream) seen++;
    },
    { code: 'upstream_stream_error' },
  );
  t.ok(seen >= 2, 'chunks before the cut arrived');
});

t.test('an in-stream Google error after 200 ends the stream in-band', async (t) => {
  up.queue.push({ type: 'sse', events: [vertexFixture('stream-text.json')[0], vertexFixture('error-503.json')] });
  const stream = await client.chat.completions.create({
    model: 'gemini',
    messages: [{ role: 'user', content: 'Hello' }],
    stream: true,
  });
  await t.rejects(
    async () => {
      for await (const _ of stream);
    },
    { code: 'upstream_stream_error' },
  );
});

t.test('a 401 from Vertex refreshes the token once and retries the call', async (t) => {
  const fetches = up.tokenFetches;
  const refused = up.unauthorized;
  up.revokeTokens();
  const res = await fetch(`${svc.gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify({ model: 'gemini', messages: [{ role: 'user', content: 'Hi' }] }),
  });
  t.equal(res.status, 200);
  t.equal(up.unauthorized, refused + 1, 'the old token was refused once');
  t.equal(up.tokenFetches, fetches + 1, 'one new token');
  t.same(
    attemptsOf(res).map((a: any) => a.o),
    ['ok'],
    'one attempt from the router’s view',
  );
  await client.chat.completions.create({ model: 'gemini', messages: [{ role: 'user', content: 'Hi' }] });
  t.equal(up.tokenFetches, fetches + 1, 'the new token is cached');
});

t.test('429 RESOURCE_EXHAUSTED is retried on another deployment', async (t) => {
  const res = await fetch(`${svc.gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify({ model: 'retry', messages: [{ role: 'user', content: 'Hi' }] }),
  });
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-svc-deployment'), 'spare');
  t.match(attemptsOf(res), [
    { d: 'busy', o: 'retryable', st: 429, why: /Resource exhausted/ },
    { d: 'spare', o: 'ok' },
  ]);
});

t.test('429 with no other deployment falls back to the fallback group; 503 UNAVAILABLE too', async (t) => {
  for (const status of [429, 503]) {
    busy.queue.push({ type: 'error', status });
    const res = await fetch(`${svc.gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
      body: JSON.stringify({ model: 'limited', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    t.equal(res.status, 200, `${status}`);
    t.equal(res.headers.get('x-svc-model-group'), 'gemini');
    t.match(attemptsOf(res), [
      { d: 'limited-busy', o: 'retryable', st: status },
      { d: 'gem', o: 'ok' },
    ]);
  }
});

t.test('a 400 INVALID_ARGUMENT passes through with its status, not retried', async (t) => {
  const before = bad.requests.length;
  const err = await client.chat.completions
    .create({ model: 'bad', messages: [{ role: 'user', content: 'Hi' }] })
    .catch((e: unknown) => e);
  t.ok(err instanceof OpenAI.BadRequestError);
  t.match(err, {
    status: 400,
    code: 'invalid_argument',
    type: 'invalid_request_error',
    message: /Unknown name "additionalProperties"/,
  });
  t.equal(bad.requests.length, before + 1, 'one attempt only');
});

t.test('Google 403 and 500 keep their status in the OpenAI envelope', async (t) => {
  for (const [status, code, Type] of [
    [403, 'permission_denied', OpenAI.PermissionDeniedError],
    [500, 'internal', OpenAI.InternalServerError],
  ] as const) {
    bad.queue.push({ type: 'error', status }, { type: 'error', status }, { type: 'error', status });
    const err = await client.chat.completions
      .create({ model: 'bad', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e);
    t.ok(err instanceof Type, `${status}`);
    t.match(err, { status, code });
    bad.queue.length = 0;
  }
});

t.test('a deployment without credentials takes no traffic', async (t) => {
  await t.rejects(client.chat.completions.create({ model: 'no-creds', messages: [{ role: 'user', content: 'Hi' }] }), {
    status: 503,
    code: 'no_deployment_available',
  });
});

const CLAUDE_PATH =
  '/v1/projects/test-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929';

t.test('Claude on Vertex: rawPredict with the Anthropic body, vertex anthropic_version and no model', async (t) => {
  const data = await client.chat.completions.create({
    model: 'claude',
    messages: [
      { role: 'system', content: 'Be French.' },
      { role: 'user', content: 'Hello' },
    ],
  });
  t.equal(last(claudeUp).path, `${CLAUDE_PATH}:rawPredict`);
  t.same(last(claudeUp).body, {
    anthropic_version: 'vertex-2023-10-16',
    max_tokens: 1024,
    system: [{ type: 'text', text: 'Be French.' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
  });
  t.match(last(claudeUp).headers.authorization, /^Bearer ya29\./);
  t.equal(data.choices[0].message.content, 'Bonjour from Claude on Vertex.');
  t.equal(data.choices[0].finish_reason, 'stop');
  // input 20 + cache write 5 + cache read 10.
  t.same(data.usage, {
    prompt_tokens: 35,
    completion_tokens: 7,
    total_tokens: 42,
    prompt_tokens_details: { cached_tokens: 10, cache_creation_tokens: 5 },
  });
});

t.test('Claude on Vertex streamed: streamRawPredict, text and a tool call, usage chunk', async (t) => {
  claudeUp.queue.push({ type: 'sse', events: vertexFixture('claude-stream.json'), separator: '\n\n', named: true });
  const stream = await client.chat.completions.create({
    model: 'claude',
    messages: [{ role: 'user', content: 'Weather?' }],
    tools,
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  t.equal(last(claudeUp).path, `${CLAUDE_PATH}:streamRawPredict`);
  t.equal(last(claudeUp).body.stream, true);
  t.notOk('model' in last(claudeUp).body);
  t.equal(chunks[0].choices[0].delta.role, 'assistant');
  t.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'Hello from Vertex Claude.');
  const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
  t.equal(calls[0].index, 0);
  t.equal(calls[0].function!.name, 'get_weather');
  t.same(JSON.parse(calls.map((c) => c.function?.arguments ?? '').join('')), { city: 'Paris' });
  t.equal(chunks.find((c) => c.choices[0]?.finish_reason)!.choices[0].finish_reason, 'tool_calls');
  t.same(chunks.at(-1)!.usage, {
    prompt_tokens: 30,
    completion_tokens: 15,
    total_tokens: 45,
    prompt_tokens_details: { cached_tokens: 10 },
  });
});

t.test('Claude on Vertex: an in-stream overloaded_error ends the stream in-band', async (t) => {
  const events = vertexFixture('claude-stream.json');
  claudeUp.queue.push({
    type: 'sse',
    events: [...events.slice(0, 4), vertexFixture('claude-overloaded.json')],
    separator: '\n\n',
    named: true,
  });
  const stream = await client.chat.completions.create({
    model: 'claude',
    messages: [{ role: 'user', content: 'Hi' }],
    stream: true,
  });
  await t.rejects(
    async () => {
      for await (const _ of stream);
    },
    { code: 'upstream_stream_error' },
  );
});
