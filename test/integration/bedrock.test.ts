// AWS Bedrock through the real gateway with the official `openai` SDK: the client cannot tell Bedrock served it.
// The fake Bedrock verifies every SigV4 signature independently, answers Converse JSON and binary ConverseStream
// frames, and records what the gateway sent.
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import t, { type Test } from 'tap';
import { getTrace, type StoredTrace } from '../../src/platform/store/repos/traces.ts';
import {
  converseText,
  startFakeBedrock,
  textStream,
  type BedrockBehaviour,
  type FakeBedrock,
} from '../helpers/fake-bedrock.ts';
import { TEST_KEY, baseConfig, startTestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/bedrock/${name}`, import.meta.url), 'utf8'));
const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const AKID = 'AKIDFAKEBEDROCK';
const SECRET = 'fake-bedrock-secret';
const SESSION_AKID = 'ASIAFAKESESSION';
const SESSION_SECRET = 'fake-session-secret';
const ENV_AKID = 'AKIDFROMENVIRONMENT';
const ENV_SECRET = 'env-secret';
const API_KEY = 'bedrock-api-key-0123456789';
// Round prices make costs exact: USD per token = 1e-6 input, 0.5e-6 cached input, 2e-6 output.
const PRICE = { input_per_mtok: 1, output_per_mtok: 2, cached_input_per_mtok: 0.5 };
const CREATED = '2026-11-21T00:00:00Z';

const fakeOptions = {
  credentials: { [AKID]: SECRET, [SESSION_AKID]: SESSION_SECRET, [ENV_AKID]: ENV_SECRET },
  apiKeys: [API_KEY],
};
async function fake(fallback?: BedrockBehaviour): Promise<FakeBedrock> {
  const f = await startFakeBedrock(fallback, fakeOptions);
  t.teardown(() => f.close());
  return f;
}

const up = await fake();
const throttledUp = await fake({
  type: 'error',
  status: 429,
  errorType: 'ThrottlingException',
  message: 'Too many requests, please wait before trying again.',
});
const unavailableUp = await fake({
  type: 'error',
  status: 503,
  errorType: 'ServiceUnavailableException',
  message: 'Bedrock is unable to process your request.',
});
const streamThrottledUp = await fake({ type: 'stream', frames: fixture('stream-throttled-first.events.json') });

const aws = (extra: Record<string, unknown> = {}) => ({
  region: 'us-east-1',
  access_key_id: AKID,
  secret_access_key: SECRET,
  ...extra,
});
const deployment = (id: string, url: string, extra: Record<string, unknown> = {}) => ({
  id,
  provider: 'bedrock',
  model: MODEL,
  base_url: url,
  aws: aws(),
  price: PRICE,
  ...extra,
});
const group = (name: string, deployments: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({
  name,
  created_at: CREATED,
  routing: { retries: 0 },
  deployments,
  ...extra,
});
const groups = [
  group('bed', [deployment('bed-1', up.url)]),
  group('bed-session', [
    deployment('bed-session', up.url, {
      aws: {
        region: 'us-east-1',
        access_key_id: SESSION_AKID,
        secret_access_key: SESSION_SECRET,
        session_token: 'FQoGZXIvYXdzEXAMPLESESSIONTOKEN',
      },
    }),
  ]),
  group('bed-apikey', [deployment('bed-apikey', up.url, { aws: { region: 'us-east-1' }, api_key: API_KEY })]),
  group('bed-env', [deployment('bed-env', up.url, { aws: { region: 'us-east-1' } })]),
  group('bed-wrong-secret', [deployment('bed-wrong', up.url, { aws: aws({ secret_access_key: 'not-the-secret' }) })]),
  group('bed-nova', [deployment('bed-nova', up.url, { model: 'us.amazon.nova-lite-v1:0' })]),
  // The throttled deployment is almost always chosen first; the retry must land on the other one.
  group(
    'bed-retry',
    [deployment('thr', throttledUp.url, { weight: 1000 }), deployment('ok-after-throttle', up.url, { weight: 0.001 })],
    { routing: { retries: 1 } },
  ),
  group(
    'bed-stream-retry',
    [
      deployment('thr-stream', streamThrottledUp.url, { weight: 1000 }),
      deployment('ok-after-stream-throttle', up.url, { weight: 0.001 }),
    ],
    { routing: { retries: 1 } },
  ),
  group('bed-unavailable', [deployment('unavailable', unavailableUp.url)], { fallback: 'bed-fallback' }),
  group('bed-fallback', [deployment('fallback', up.url)]),
];

// Environment credentials are read once, when the service creates the Bedrock adapter.
process.env.AWS_ACCESS_KEY_ID = ENV_AKID;
process.env.AWS_SECRET_ACCESS_KEY = ENV_SECRET;
const svc = await startTestService(
  t,
  baseConfig({
    model_groups: groups,
    keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: groups.map((g) => g.name) }],
    plugins: [{ use: 'auth' }, { use: 'router', config: { backoff_base_ms: 1 } }, { use: 'tracing' }],
  }),
);
delete process.env.AWS_ACCESS_KEY_ID;
delete process.env.AWS_SECRET_ACCESS_KEY;

const client = new OpenAI({ baseURL: `${svc.gatewayUrl}/v1`, apiKey: TEST_KEY, maxRetries: 0, timeout: 10_000 });
const messages = [{ role: 'user' as const, content: 'Hello Bedrock' }];
const attemptsOf = (headers: Headers) => JSON.parse(headers.get('x-svc-attempts') ?? '[]');

/** The error a call rejects with (undefined when it resolves). */
const failure = (call: Promise<unknown>): Promise<any> =>
  call.then(
    () => undefined,
    (err: unknown) => err,
  );

function traceOf(id: string): Promise<StoredTrace> {
  return waitFor(`trace ${id} stored`, () => getTrace(svc.service.db, 'default', id));
}

/** The last request the fake recorded, asserting its signature verified with service bedrock. */
function lastSigned(t: Test, f: FakeBedrock = up) {
  const r = f.requests.at(-1)!;
  t.ok(r.sigv4?.ok, `SigV4 verified by the fake (${r.sigv4?.reason ?? 'ok'})`);
  t.equal(r.sigv4?.service, 'bedrock');
  t.equal(r.sigv4?.region, 'us-east-1');
  return r;
}

t.test('plain chat: Converse, signed with service bedrock, the model id ":" signed as %253A', async (t) => {
  const { data, response } = await client.chat.completions.create({ model: 'bed', messages }).withResponse();
  t.equal(data.object, 'chat.completion');
  t.equal(data.id, 'chatcmpl-fake-converse-request', 'id from x-amzn-requestid');
  t.equal(data.model, MODEL);
  t.equal(data.choices[0].message.role, 'assistant');
  t.equal(data.choices[0].message.content, 'Hello from Bedrock');
  t.equal(data.choices[0].finish_reason, 'stop');
  t.same(data.usage, {
    prompt_tokens: 12,
    completion_tokens: 5,
    total_tokens: 17,
    prompt_tokens_details: { cached_tokens: 0 },
  });
  t.equal(response.headers.get('x-svc-deployment'), 'bed-1');
  t.equal(response.headers.get('x-svc-cost'), '0.000022', '12 × 1e-6 + 5 × 2e-6');
  const r = lastSigned(t);
  t.equal(r.path, '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse', 'the wire carries %3A');
  t.equal(r.modelId, MODEL);
  t.match(
    r.sigv4!.canonicalRequest,
    /^POST\n\/model\/anthropic\.claude-3-5-haiku-20241022-v1%253A0\/converse\n/,
    'signed as %253A',
  );
  t.same(r.body, {
    messages: [{ role: 'user', content: [{ text: 'Hello Bedrock' }] }],
    inferenceConfig: { maxTokens: 4096 },
  });
  t.notOk('x-amz-security-token' in r.headers);
});

t.test('an inference-profile model id (us.…:0) verifies too', async (t) => {
  await client.chat.completions.create({ model: 'bed-nova', messages });
  const r = lastSigned(t);
  t.equal(r.path, '/model/us.amazon.nova-lite-v1%3A0/converse');
});

t.test('system and developer prompts go to system blocks', async (t) => {
  await client.chat.completions.create({
    model: 'bed',
    messages: [{ role: 'system', content: 'Be brief.' }, { role: 'developer', content: 'Use English.' }, ...messages],
  });
  t.same(lastSigned(t).body.system, [{ text: 'Be brief.' }, { text: 'Use English.' }]);
});

t.test('image as a data URL becomes an image block; an http URL is a 400 that never reaches Bedrock', async (t) => {
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const content = [
    { type: 'text' as const, text: 'What is this?' },
    { type: 'image_url' as const, image_url: { url: `data:image/png;base64,${png}` } },
  ];
  await client.chat.completions.create({ model: 'bed', messages: [{ role: 'user', content }] });
  t.same(lastSigned(t).body.messages[0].content, [
    { text: 'What is this?' },
    { image: { format: 'png', source: { bytes: png } } },
  ]);
  const before = up.requests.length;
  const err = await failure(
    client.chat.completions.create({
      model: 'bed',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }],
    }),
  );
  t.ok(err instanceof OpenAI.BadRequestError);
  t.equal(err.status, 400);
  t.equal(err.code, 'invalid_request');
  t.match(err.message, /cannot fetch image URLs/);
  t.equal(up.requests.length, before, 'nothing sent upstream');
});

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

t.test('parallel tool calls, not streamed: tool_calls with JSON-string arguments, usage by the rule', async (t) => {
  up.queue.push({ type: 'converse', body: fixture('response-parallel-tools.converse.json') });
  const data = await client.chat.completions.create({
    model: 'bed',
    messages,
    tools: [weatherTool],
    tool_choice: 'required',
  });
  const choice = data.choices[0];
  t.equal(choice.finish_reason, 'tool_calls');
  t.equal(choice.message.content, 'Checking both cities.');
  t.same(choice.message.tool_calls, [
    { id: 'tooluse_paris', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    { id: 'tooluse_rome', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
  ]);
  t.same(data.usage, {
    prompt_tokens: 1300,
    completion_tokens: 40,
    total_tokens: 1340,
    prompt_tokens_details: { cached_tokens: 1000, cache_creation_tokens: 200 },
  });
  t.same(lastSigned(t).body.toolConfig, {
    tools: [
      {
        toolSpec: {
          name: 'get_weather',
          description: 'Current weather',
          inputSchema: { json: weatherTool.function.parameters },
        },
      },
    ],
    toolChoice: { any: {} },
  });
});

t.test('parallel tool calls, streamed: indices 0 and 1, arguments reassembled, usage chunk last', async (t) => {
  up.queue.push({ type: 'stream', frames: fixture('stream-parallel-tools.events.json') });
  const stream = await client.chat.completions.create({
    model: 'bed',
    messages,
    tools: [weatherTool],
    stream: true,
    stream_options: { include_usage: true },
  });
  const calls: { id?: string; name?: string; arguments: string }[] = [];
  let content = '';
  let finish: string | null = null;
  let usage: unknown;
  let first = true;
  for await (const chunk of stream) {
    if (first) t.equal(chunk.choices[0].delta.role, 'assistant', 'the first chunk carries the role');
    first = false;
    if (chunk.usage) usage = chunk.usage;
    const c = chunk.choices[0];
    if (!c) continue;
    content += c.delta.content ?? '';
    for (const tc of c.delta.tool_calls ?? []) {
      const slot = (calls[tc.index] ??= { arguments: '' });
      if (tc.id) slot.id = tc.id;
      if (tc.function?.name) slot.name = tc.function.name;
      slot.arguments += tc.function?.arguments ?? '';
    }
    finish = c.finish_reason ?? finish;
  }
  t.equal(content, 'Checking both cities.');
  t.same(calls, [
    { id: 'tooluse_paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: 'tooluse_rome', name: 'get_weather', arguments: '{"city":"Rome"}' },
  ]);
  t.equal(finish, 'tool_calls');
  t.same(usage, {
    prompt_tokens: 1300,
    completion_tokens: 40,
    total_tokens: 1340,
    prompt_tokens_details: { cached_tokens: 1000, cache_creation_tokens: 200 },
  });
  const r = lastSigned(t);
  t.equal(r.path, '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream');
  t.equal(r.headers.accept, 'application/vnd.amazon.eventstream');
});

t.test(
  'tool results round trip: assistant tool_calls → toolUse, tool messages → one user turn of toolResult',
  async (t) => {
    const request = fixture('request-tool-round-trip.openai.json');
    await client.chat.completions.create({ ...request, model: 'bed' });
    t.same(lastSigned(t).body, fixture('request-tool-round-trip.converse.json'));
  },
);

t.test(
  'stop reasons: max_tokens → length, stop_sequence → stop, guardrail → content_filter (streamed too)',
  async (t) => {
    up.queue.push({ type: 'converse', body: converseText('Cut', undefined, 'max_tokens') });
    t.equal(
      (await client.chat.completions.create({ model: 'bed', messages, max_tokens: 3 })).choices[0].finish_reason,
      'length',
    );
    t.equal(lastSigned(t).body.inferenceConfig.maxTokens, 3);
    up.queue.push({ type: 'converse', body: converseText('Up to', undefined, 'stop_sequence') });
    t.equal(
      (await client.chat.completions.create({ model: 'bed', messages, stop: ['END'] })).choices[0].finish_reason,
      'stop',
    );
    t.same(lastSigned(t).body.inferenceConfig.stopSequences, ['END']);
    up.queue.push({ type: 'converse', body: fixture('response-guardrail.converse.json') });
    const guarded = await client.chat.completions.create({ model: 'bed', messages });
    t.equal(guarded.choices[0].finish_reason, 'content_filter');
    up.queue.push({ type: 'stream', frames: textStream(['Sorry.'], undefined, 'guardrail_intervened') });
    let finish: string | null = null;
    for await (const chunk of await client.chat.completions.create({ model: 'bed', messages, stream: true })) {
      finish = chunk.choices[0]?.finish_reason ?? finish;
      t.notOk(chunk.usage, 'no usage chunk without include_usage');
    }
    t.equal(finish, 'content_filter');
  },
);

t.test('a streamed call is costed from the metadata usage (cache reads at the cached price)', async (t) => {
  up.queue.push({ type: 'stream', frames: fixture('stream-parallel-tools.events.json') });
  const { data: stream, response } = await client.chat.completions
    .create({ model: 'bed', messages, stream: true })
    .withResponse();
  for await (const _ of stream);
  t.equal(response.headers.get('x-svc-cost-estimated'), 'true');
  const trace = await traceOf(response.headers.get('x-svc-request-id')!);
  t.equal(trace.tokens, 1340);
  // (1300 − 1000) × 1e-6 + 1000 × 0.5e-6 + 40 × 2e-6
  t.ok(Math.abs(trace.cost - 0.00088) < 1e-12, `cost ${trace.cost}`);
});

t.test('an exception frame after content ends the stream with upstream_stream_error', async (t) => {
  up.queue.push({ type: 'stream', frames: fixture('stream-exception-mid.events.json') });
  const stream = await client.chat.completions.create({ model: 'bed', messages, stream: true });
  let text = '';
  const err = await failure(
    (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    })(),
  );
  t.equal(text, 'Partial', 'content before the exception arrived');
  t.ok(err instanceof OpenAI.APIError);
  t.equal(err.code, 'upstream_stream_error');
  t.equal(err.type, 'server_error');
  t.match(err.message, /stream interrupted/);
});

t.test('a frame with a bad CRC ends the stream with upstream_stream_error', async (t) => {
  up.queue.push({ type: 'stream', frames: textStream(['one', 'two', 'three']), corruptCrcAt: 2 });
  const stream = await client.chat.completions.create({ model: 'bed', messages, stream: true });
  let text = '';
  const err = await failure(
    (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    })(),
  );
  t.equal(text, 'one');
  t.equal(err?.code, 'upstream_stream_error');
});

t.test('429 ThrottlingException is retried on the other deployment', async (t) => {
  const { data, response } = await client.chat.completions.create({ model: 'bed-retry', messages }).withResponse();
  t.equal(data.choices[0].message.content, 'Hello from Bedrock');
  t.match(attemptsOf(response.headers), [
    { d: 'thr', o: 'retryable', st: 429, why: 'Too many requests, please wait before trying again.' },
    { d: 'ok-after-throttle', o: 'ok' },
  ]);
  t.equal(response.headers.get('x-svc-deployment'), 'ok-after-throttle');
});

t.test('a throttlingException as the first stream frame is retried before anything reached the client', async (t) => {
  const { data: stream, response } = await client.chat.completions
    .create({ model: 'bed-stream-retry', messages, stream: true })
    .withResponse();
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  t.equal(text, 'Hello from Bedrock');
  t.match(attemptsOf(response.headers), [
    { d: 'thr-stream', o: 'retryable', st: 429 },
    { d: 'ok-after-stream-throttle', o: 'ok' },
  ]);
});

t.test('503 ServiceUnavailableException falls back to the fallback group', async (t) => {
  const { data, response } = await client.chat.completions
    .create({ model: 'bed-unavailable', messages })
    .withResponse();
  t.equal(data.choices[0].message.content, 'Hello from Bedrock');
  t.equal(response.headers.get('x-svc-model-group'), 'bed-fallback');
  t.match(attemptsOf(response.headers), [
    { d: 'unavailable', o: 'retryable', st: 503 },
    { d: 'fallback', o: 'ok' },
  ]);
});

t.test('400 ValidationException passes through with its status, message and AWS name as code', async (t) => {
  up.queue.push({
    type: 'error',
    status: 400,
    errorType: 'ValidationException',
    message: 'The model returned the following errors: messages: roles must alternate',
  });
  const before = up.requests.length;
  const err = await failure(client.chat.completions.create({ model: 'bed', messages }));
  t.ok(err instanceof OpenAI.BadRequestError);
  t.equal(err.status, 400);
  t.equal(err.code, 'ValidationException');
  t.equal(err.type, 'invalid_request_error');
  t.equal(err.error.message, 'The model returned the following errors: messages: roles must alternate');
  t.equal(up.requests.length, before + 1, 'not retried');
});

t.test('a wrong secret is refused by the fake verifier: 403 passed through', async (t) => {
  const err = await failure(client.chat.completions.create({ model: 'bed-wrong-secret', messages }));
  t.ok(err instanceof OpenAI.PermissionDeniedError);
  t.equal(err.code, 'InvalidSignatureException');
  t.match(err.error.message, /signature we calculated does not match/);
});

t.test('session-token credentials: X-Amz-Security-Token sent and signed', async (t) => {
  await client.chat.completions.create({ model: 'bed-session', messages });
  const r = lastSigned(t);
  t.equal(r.headers['x-amz-security-token'], 'FQoGZXIvYXdzEXAMPLESESSIONTOKEN');
  t.equal(r.sigv4!.accessKeyId, SESSION_AKID);
  t.ok(r.sigv4!.signedHeaders!.includes('x-amz-security-token'));
});

t.test(
  'a body from 16 KiB on is hashed on a worker thread: x-amz-content-sha256 signed and matching the body',
  async (t) => {
    await client.chat.completions.create({
      model: 'bed',
      messages: [{ role: 'user', content: 'y'.repeat(16 * 1024) }],
    });
    const large = lastSigned(t);
    t.match(large.headers['x-amz-content-sha256'], /^[0-9a-f]{64}$/, 'the fake checked it against the body');
    t.ok(large.sigv4!.signedHeaders!.includes('x-amz-content-sha256'));
    await client.chat.completions.create({
      model: 'bed',
      messages: [{ role: 'user', content: 'y'.repeat(15 * 1024) }],
    });
    t.notOk('x-amz-content-sha256' in lastSigned(t).headers, 'smaller bodies are hashed inline by the signer');
  },
);

t.test('a Bedrock API key is sent as Bearer, without SigV4', async (t) => {
  await client.chat.completions.create({ model: 'bed-apikey', messages });
  const r = up.requests.at(-1)!;
  t.equal(r.headers.authorization, `Bearer ${API_KEY}`);
  t.equal(r.sigv4, undefined);
  t.notOk('x-amz-date' in r.headers);
});

t.test('credentials from AWS_* environment variables read at start', async (t) => {
  await client.chat.completions.create({ model: 'bed-env', messages });
  t.equal(lastSigned(t).sigv4!.accessKeyId, ENV_AKID);
});

t.test('embeddings on a Bedrock-only group: 400 embeddings_not_supported', async (t) => {
  const err = await failure(client.embeddings.create({ model: 'bed', input: 'hi' }));
  t.equal(err.status, 400);
  t.equal(err.code, 'embeddings_not_supported');
});
