// server.large_request_bytes: a request whose declared body is that large is served by the large-request thread,
// which the thread that took it passes the request through to. Small requests stay where they arrived. Both share the
// limits exactly (one counter store), the key's allowed networks see the client's own address, streams and errors
// come back as the provider or the gateway wrote them, a wrong key is refused before anything is passed on, and a stop
// lets a large request in flight finish.
import OpenAI from 'openai';
import t from 'tap';
import { startFakeOpenAI } from '../helpers/fake-openai.ts';
import { baseConfig, chatBody, openaiDeployment, startTestService, TEST_KEY } from '../helpers/service.ts';

const LARGE = 64 * 1024;
const up = await startFakeOpenAI();
t.teardown(() => up.close());

const key = (name: string) => `sk-test-${name}-0123456789abcdef`;
/** A chat body of about `bytes` bytes. */
const chatOfSize = (bytes: number, extra: Record<string, unknown> = {}) =>
  chatBody({ model: 'up', messages: [{ role: 'user', content: 'word '.repeat(Math.ceil(bytes / 5)) }], ...extra });

function config(keys: Record<string, unknown>[]) {
  return baseConfig({
    server: { host: '127.0.0.1', port: 0, admin_port: 0, large_request_bytes: LARGE },
    model_groups: [{ name: 'up', deployments: [openaiDeployment('large-up', up.url)] }],
    keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['up'] }, ...keys],
    plugins: [{ use: 'auth' }, { use: 'rate-limit' }, { use: 'router' }],
  });
}

const post = (url: string, body: unknown, apiKey = TEST_KEY) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const metricsOf = async (adminUrl: string): Promise<any> => (await fetch(`${adminUrl}/metrics`)).json();

t.test('a large request is served by the large-request thread, a small one where it arrived', async (t) => {
  const { gatewayUrl, adminUrl } = await startTestService(t, config([]));
  const small = await post(gatewayUrl, chatBody({ model: 'up' }));
  t.equal(small.status, 200);
  const large = await post(gatewayUrl, chatOfSize(LARGE));
  t.equal(large.status, 200);
  const answer = (await large.json()) as any;
  t.equal(answer.object, 'chat.completion');
  t.match(large.headers.get('x-svc-request-id'), /^[0-9a-f-]{36}$/, 'the gateway headers come back');
  t.match(large.headers.get('x-svc-overhead-ms'), /^\d/);
  t.equal(up.requests.at(-1)!.body.messages[0].content.length, chatOfSize(LARGE).messages[0].content.length);

  const metrics = await metricsOf(adminUrl);
  t.same(metrics.gateway_threads.requests, [1, 1], 'the main thread served one, the large-request thread one');
  t.equal(metrics.requests.total, 2, '/metrics counts both');
});

t.test('limits are exact across both threads: rpm 4 over large and small requests', async (t) => {
  const { gatewayUrl } = await startTestService(
    t,
    config([{ alias: 'limited', key: key('limited'), project: 'default', model_groups: ['up'], rpm: 4 }]),
  );
  const statuses: number[] = [];
  for (let i = 0; i < 8; i++) {
    const body = i % 2 === 0 ? chatOfSize(LARGE) : chatBody({ model: 'up' });
    const res = await post(gatewayUrl, body, key('limited'));
    statuses.push(res.status);
    if (res.status === 429) t.equal(((await res.json()) as any).error.code, 'rate_limit_exceeded');
    else await res.arrayBuffer();
  }
  t.same(statuses, [200, 200, 200, 200, 429, 429, 429, 429]);
});

t.test("a key's allowed networks see the client's address on the large-request thread", async (t) => {
  const { gatewayUrl } = await startTestService(
    t,
    config([
      {
        alias: 'local',
        key: key('local'),
        project: 'default',
        model_groups: ['up'],
        allowed_networks: ['127.0.0.1/32'],
      },
      {
        alias: 'remote',
        key: key('remote'),
        project: 'default',
        model_groups: ['up'],
        allowed_networks: ['10.0.0.0/8'],
      },
    ]),
  );
  t.equal((await post(gatewayUrl, chatOfSize(LARGE), key('local'))).status, 200, 'from 127.0.0.1: allowed');
  const refused = await post(gatewayUrl, chatOfSize(LARGE), key('remote'));
  t.equal(refused.status, 403);
  const body = (await refused.json()) as any;
  t.equal(body.error.code, 'ip_not_allowed');
  t.match(body.error.message, /127\.0\.0\.1/, 'the refusal names the client address, not the socket');
  t.notOk(JSON.stringify(body).includes('x-svc-client-address'));
});

t.test('a large stream comes back chunk by chunk through the OpenAI SDK', async (t) => {
  const { gatewayUrl, adminUrl } = await startTestService(t, config([]));
  up.queue.push({ type: 'stream', pieces: ['one ', 'two ', 'three'], gapMs: 20 });
  const client = new OpenAI({ baseURL: `${gatewayUrl}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  const { messages } = chatOfSize(LARGE) as { messages: OpenAI.ChatCompletionMessageParam[] };
  const stream = await client.chat.completions.create({ model: 'up', messages, stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  t.equal(text, 'one two three');
  t.same((await metricsOf(adminUrl)).gateway_threads.requests, [0, 1]);
});

t.test('a wrong key with a large body is refused where it arrived, before anything is passed on', async (t) => {
  const { gatewayUrl, adminUrl } = await startTestService(t, config([]));
  const res = await post(gatewayUrl, chatOfSize(LARGE), 'sk-wrong-0123456789abcdef');
  t.equal(res.status, 401);
  t.equal(((await res.json()) as any).error.code, 'invalid_api_key');
  t.same((await metricsOf(adminUrl)).gateway_threads.requests, [1, 0]);
});

t.test('a body over max_body_bytes is refused where it arrived, and the connection closes', async (t) => {
  const { gatewayUrl, adminUrl } = await startTestService(
    t,
    baseConfig({
      ...config([]),
      server: { host: '127.0.0.1', port: 0, admin_port: 0, large_request_bytes: LARGE, max_body_bytes: 2 * LARGE },
    }),
  );
  const res = await post(gatewayUrl, chatOfSize(3 * LARGE));
  t.equal(res.status, 413);
  t.equal(((await res.json()) as any).error.code, 'request_too_large');
  t.equal(res.headers.get('connection'), 'close');
  t.same((await metricsOf(adminUrl)).gateway_threads.requests, [1, 0], 'not passed on');
});

t.test('a provider error on a large request comes back in the envelope', async (t) => {
  const { gatewayUrl } = await startTestService(t, config([]));
  up.queue.push({
    type: 'error',
    status: 400,
    envelope: {
      error: { message: 'too long', type: 'invalid_request_error', param: null, code: 'context_length_exceeded' },
    },
  });
  const res = await post(gatewayUrl, chatOfSize(LARGE));
  t.equal(res.status, 400);
  t.equal(((await res.json()) as any).error.code, 'context_length_exceeded');
});

t.test('a stop lets a large request in flight finish', async (t) => {
  const { gatewayUrl, service } = await startTestService(t, config([]));
  up.queue.push({ type: 'delay', ms: 400, then: { type: 'ok' } });
  const inFlight = post(gatewayUrl, chatOfSize(LARGE));
  await new Promise((r) => setTimeout(r, 150));
  const stopped = service.stop();
  const res = await inFlight;
  t.equal(res.status, 200);
  t.equal(((await res.json()) as any).object, 'chat.completion');
  await stopped;
});
