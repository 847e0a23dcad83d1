// The official `openai` SDK against the gateway: what a real client sees for chat, streams, embeddings,
// the models list, and each error class.
import OpenAI from 'openai';
import t, { type Test } from 'tap';
import { startFakeOpenAI, type Behaviour } from '../helpers/fake-openai.ts';
import { TEST_KEY, baseConfig, openaiDeployment, startTestService } from '../helpers/service.ts';

async function fake(fallback: Behaviour) {
  const f = await startFakeOpenAI(fallback);
  t.teardown(() => f.close());
  return f;
}

const embedUp = await fake({ type: 'ok' });
const limitedUp = await fake({
  type: 'error',
  status: 429,
  envelope: {
    error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' },
  },
  headers: { 'retry-after': '1' },
});
const badUp = await fake({
  type: 'error',
  status: 400,
  envelope: {
    error: {
      message: "This model's maximum context length is 8192 tokens",
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  },
});
const cutUp = await fake({ type: 'stream', cutAfter: 3 });
const slowUp = await fake({ type: 'hang' });
const closed = await startFakeOpenAI();
const closedUrl = closed.url;
await closed.close();

const created = '2026-11-21T00:00:00Z';
const mock = (id: string) => ({
  id,
  provider: 'mock',
  model: `mock-${id}`,
  price: { input_per_mtok: 0.15, output_per_mtok: 0.6 },
});
const groups = [
  { name: 'demo', created_at: created, deployments: [mock('demo-mock')] },
  { name: 'zeta', created_at: '2026-01-02T03:04:05Z', owned_by: 'acme', deployments: [mock('zeta-mock')] },
  { name: 'alpha', created_at: '2025-06-01T00:00:00Z', deployments: [mock('alpha-mock')] },
  { name: 'emb', created_at: created, deployments: [openaiDeployment('emb-up', embedUp.url)] },
  {
    name: 'limited',
    created_at: created,
    routing: { retries: 0 },
    deployments: [openaiDeployment('limited-up', limitedUp.url)],
  },
  { name: 'bad', created_at: created, deployments: [openaiDeployment('bad-up', badUp.url)] },
  { name: 'cut', created_at: created, deployments: [openaiDeployment('cut-up', cutUp.url)] },
  {
    name: 'slow',
    created_at: created,
    routing: { retries: 0, timeout_ms: 100 },
    deployments: [openaiDeployment('slow-up', slowUp.url)],
  },
  { name: 'down', created_at: created, routing: { retries: 0 }, deployments: [openaiDeployment('down-up', closedUrl)] },
];
const granted = ['zeta', 'demo', 'alpha', 'emb', 'limited', 'bad', 'cut', 'slow', 'down'];
const { gatewayUrl } = await startTestService(
  t,
  baseConfig({
    model_groups: groups,
    keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: granted }],
  }),
);

const client = (apiKey = TEST_KEY) =>
  new OpenAI({ baseURL: `${gatewayUrl}/v1`, apiKey, maxRetries: 0, timeout: 10_000 });
const messages = [{ role: 'user' as const, content: 'Hello SDK' }];

/** Runs `fn`, expects it to throw, returns the error. */
async function rejection(t: Test, fn: () => Promise<unknown>): Promise<any> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  t.fail('expected an error');
  return undefined;
}

t.test('chat completion, not streamed', async (t) => {
  const { data, response } = await client().chat.completions.create({ model: 'demo', messages }).withResponse();
  t.equal(data.object, 'chat.completion');
  t.equal(data.model, 'mock-demo-mock');
  t.match(data.choices[0].message.content, /You said: "Hello SDK"/);
  t.equal(data.choices[0].finish_reason, 'stop');
  t.ok(data.usage!.prompt_tokens > 0 && data.usage!.completion_tokens > 0);
  t.equal(data.usage!.total_tokens, data.usage!.prompt_tokens + data.usage!.completion_tokens);
  t.equal(response.headers.get('x-svc-model-group'), 'demo');
  t.equal(response.headers.get('x-svc-cost-estimated'), 'false');
});

t.test('streamed chat without include_usage has no usage', async (t) => {
  const stream = await client().chat.completions.create({ model: 'demo', messages, stream: true });
  let text = '';
  let count = 0;
  for await (const chunk of stream) {
    count++;
    t.equal(chunk.object, 'chat.completion.chunk');
    t.notOk(chunk.usage, 'no usage on any chunk');
    text += chunk.choices[0]?.delta?.content ?? '';
  }
  t.ok(count > 3);
  t.match(text, /You said: "Hello SDK"/);
});

t.test('streamed chat with include_usage ends with a usage chunk', async (t) => {
  const stream = await client().chat.completions.create({
    model: 'demo',
    messages,
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  const last = chunks.at(-1)!;
  t.same(last.choices, []);
  t.ok(last.usage!.completion_tokens > 0);
  t.equal(last.usage!.total_tokens, last.usage!.prompt_tokens + last.usage!.completion_tokens);
  for (const c of chunks.slice(0, -1)) t.notOk(c.usage, 'usage only on the last chunk');
  t.equal(chunks.at(-2)!.choices[0].finish_reason, 'stop');
});

t.test('a stream interrupted upstream surfaces as an APIError with code upstream_stream_error', async (t) => {
  const stream = await client().chat.completions.create({ model: 'cut', messages, stream: true });
  let seen = 0;
  const err = await rejection(t, async () => {
    for await (const _ of stream) seen++;
  });
  t.ok(seen >= 1, 'chunks before the cut arrived');
  t.ok(err instanceof OpenAI.APIError);
  t.equal(err.code, 'upstream_stream_error');
  t.equal(err.type, 'server_error');
  t.match(err.message, /stream interrupted/);
});

t.test('embeddings with the SDK default (base64) decode to floats: mock provider', async (t) => {
  const sdk = client();
  const decoded = await sdk.embeddings.create({ model: 'demo', input: ['alpha', 'beta'] });
  t.equal(decoded.object, 'list');
  t.equal(decoded.data.length, 2);
  const vector = decoded.data[0].embedding;
  t.ok(Array.isArray(vector), 'an array, not a base64 string');
  t.equal(vector.length, 256);
  t.ok(vector.every((v) => typeof v === 'number' && Number.isFinite(v)));
  const norm = Math.sqrt(vector.reduce((s, v) => s + v * v, 0));
  t.ok(Math.abs(norm - 1) < 1e-4, 'a unit vector');
  t.ok(decoded.usage.prompt_tokens > 0);
  const floats = await sdk.embeddings.create({ model: 'demo', input: ['alpha', 'beta'], encoding_format: 'float' });
  t.same(
    decoded.data.map((d) => d.embedding),
    floats.data.map((d) => d.embedding),
    'the same vectors as encoding_format float',
  );
});

t.test('embeddings with the SDK default (base64) decode to floats: OpenAI upstream', async (t) => {
  const before = embedUp.requests.length;
  const res = await client().embeddings.create({ model: 'emb', input: 'hello' });
  t.same(res.data[0].embedding, [0.5, -0.25, 0.125]);
  t.equal(res.usage.prompt_tokens, 10);
  const r = embedUp.requests[before];
  t.equal(r.path, '/v1/embeddings');
  t.equal(r.body.encoding_format, 'base64', 'the SDK asked for base64 and the gateway passed it on');
  t.equal(r.body.model, 'model-emb-up');
});

t.test('models.list: sorted, with created and owned_by', async (t) => {
  const page = await client().models.list();
  t.same(
    page.data.map((m) => m.id),
    [...granted].sort(),
  );
  const byId = Object.fromEntries(page.data.map((m) => [m.id, m]));
  t.same(byId.zeta, {
    id: 'zeta',
    object: 'model',
    created: Date.parse('2026-01-02T03:04:05Z') / 1000,
    owned_by: 'acme',
  });
  t.same(byId.alpha, {
    id: 'alpha',
    object: 'model',
    created: Date.parse('2025-06-01T00:00:00Z') / 1000,
    owned_by: 'svc',
  });
  for (const m of page.data) t.ok(Number.isInteger(m.created));
  const listed: string[] = [];
  for await (const m of client().models.list()) listed.push(m.id);
  t.same(listed, [...granted].sort(), 'auto-pagination yields the same list');
});

t.test('AuthenticationError for an unknown key', async (t) => {
  const err = await rejection(t, () =>
    client('sk-not-a-real-key-000000000').chat.completions.create({ model: 'demo', messages }),
  );
  t.ok(err instanceof OpenAI.AuthenticationError);
  t.equal(err.status, 401);
  t.equal(err.code, 'invalid_api_key');
  t.equal(err.type, 'authentication_error');
  t.equal(err.param, null);
  t.match(err.headers.get('x-svc-request-id'), /^[0-9a-f-]{36}$/);
});

t.test('PermissionDeniedError for a group the key may not use', async (t) => {
  const err = await rejection(t, () => client().chat.completions.create({ model: 'not-granted', messages }));
  t.ok(err instanceof OpenAI.PermissionDeniedError);
  t.equal(err.status, 403);
  t.equal(err.code, 'model_not_allowed');
  t.equal(err.type, 'permission_error');
});

t.test('BadRequestError for an invalid body', async (t) => {
  const err = await rejection(t, () => client().chat.completions.create({ model: 'demo', messages: [] }));
  t.ok(err instanceof OpenAI.BadRequestError);
  t.equal(err.status, 400);
  t.equal(err.code, 'invalid_request');
  t.equal(err.type, 'invalid_request_error');
  t.match(err.message, /messages/);
});

t.test("BadRequestError with the provider's own code when the provider refuses", async (t) => {
  const err = await rejection(t, () => client().chat.completions.create({ model: 'bad', messages }));
  t.ok(err instanceof OpenAI.BadRequestError);
  t.equal(err.code, 'context_length_exceeded');
  t.equal(err.param, 'messages');
  t.equal(err.type, 'invalid_request_error');
  t.equal(badUp.requests.length, 1);
});

t.test('RateLimitError passed through from the provider', async (t) => {
  const err = await rejection(t, () => client().chat.completions.create({ model: 'limited', messages }));
  t.ok(err instanceof OpenAI.RateLimitError);
  t.equal(err.status, 429);
  t.equal(err.code, 'rate_limit_exceeded');
  t.equal(err.type, 'requests');
  t.equal(err.message, '429 Rate limit reached for requests');
  t.equal(limitedUp.requests.length, 1, 'neither the gateway (retries 0) nor the SDK retried');
});

t.test('InternalServerError 502 upstream_unreachable', async (t) => {
  const err = await rejection(t, () => client().chat.completions.create({ model: 'down', messages }));
  t.ok(err instanceof OpenAI.InternalServerError);
  t.equal(err.status, 502);
  t.equal(err.code, 'upstream_unreachable');
  t.equal(err.type, 'server_error');
  t.match(JSON.parse(err.headers.get('x-svc-attempts')), [{ d: 'down-up', o: 'retryable' }]);
});

t.test('InternalServerError 504 upstream_timeout', async (t) => {
  const err = await rejection(t, () => client().chat.completions.create({ model: 'slow', messages }));
  t.ok(err instanceof OpenAI.InternalServerError);
  t.equal(err.status, 504);
  t.equal(err.code, 'upstream_timeout');
  t.equal(err.type, 'server_error');
});
