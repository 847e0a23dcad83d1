// rate-limit plugin at its boundaries, with in-process counters and with two gateway processes sharing Redis:
// requests and tokens per minute, per key and per project, retry-after, reservation and settlement (non-streamed,
// streamed, and a client that leaves mid-stream), refusals traced, and Redis going away (503, /ready).
import t, { type Test } from 'tap';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { startFakeOpenAI } from '../helpers/fake-openai.ts';
import { COUNTERS_MODES, roomInMinute, startGateways, type Gateways } from '../helpers/gateways.ts';
import { REDIS_URL, redisTestPrefix } from '../helpers/redis.ts';
import { baseConfig, chatBody, openaiDeployment, startTestService } from '../helpers/service.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { waitFor } from '../helpers/wait-for.ts';

const key = (name: string) => `sk-test-${name}-0123456789abcdef`;
/** Prompt estimate of chatBody()'s one "Hello" message: 3 + (4 + 2) tokens. */
const HELLO_PROMPT = 9;

function chat(
  url: string,
  apiKey: string,
  extra: Record<string, unknown> = {},
  init: RequestInit = {},
): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(chatBody(extra)),
    ...init,
  });
}

/** Runs `n` calls, `width` at a time; returns the statuses. */
async function burst(n: number, width: number, call: (i: number) => Promise<Response>): Promise<number[]> {
  const statuses: number[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < n; i = next++) {
        const res = await call(i);
        await res.arrayBuffer();
        statuses[i] = res.status;
      }
    }),
  );
  return statuses;
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

/** Seconds until the current minute ends, as the gateway computes retry-after. */
const secondsLeftInMinute = () => Math.ceil((60_000 - (Date.now() % 60_000)) / 1000);

/**
 * Waits until the settlement that runs after a response ends is done: until then the key's token window (this
 * minute's, in the default project) holds the whole reservation. An empty check that fits once the window holds no
 * more than `used` says so; the requests that follow say it holds exactly that.
 */
async function settled(gw: Gateways, alias: string, used: number): Promise<void> {
  const window = [{ key: `{p:default}:tpm:k:${alias}`, amount: 0, limit: used }];
  await waitFor(`key '${alias}' settled`, async () => (await gw.service.counters.admitMinute(window)).allowed);
}

async function checkRefusal(t: Test, res: Response, code: string, message: RegExp): Promise<void> {
  t.equal(res.status, 429);
  const body = await res.json();
  t.same(body, { error: { message: body.error.message, type: 'rate_limit_error', param: null, code } });
  t.match(body.error.message, message);
  const retryAfter = Number(res.headers.get('retry-after'));
  const expected = secondsLeftInMinute();
  t.ok(
    retryAfter >= 1 && retryAfter <= 60 && Math.abs(retryAfter - expected) <= 1,
    `retry-after ${retryAfter} is the rest of the minute (${expected} s)`,
  );
  t.ok(res.headers.get('x-svc-request-id'), 'the refusal has a request id');
}

for (const mode of COUNTERS_MODES) {
  t.test(`${mode} counters`, async (t) => {
    const up = await startFakeOpenAI();
    t.teardown(() => up.close());
    const keys = [
      { alias: 'rpm600', key: key('rpm600'), project: 'default', model_groups: ['demo'], rpm: 600 },
      { alias: 'tpm', key: key('tpm'), project: 'default', model_groups: ['demo'], tpm: 2000 },
      { alias: 'tpm-stream', key: key('tpm-stream'), project: 'default', model_groups: ['demo'], tpm: 2000 },
      { alias: 'tpm-leaves', key: key('tpm-leaves'), project: 'default', model_groups: ['slow'], tpm: 2000 },
      { alias: 'b1', key: key('b1'), project: 'team-b', model_groups: ['demo'] },
      { alias: 'b2', key: key('b2'), project: 'team-b', model_groups: ['demo'] },
      { alias: 'c1', key: key('c1'), project: 'team-c', model_groups: ['demo'] },
    ];
    const gw = await startGateways(
      t,
      mode,
      baseConfig({
        projects: [
          { id: 'default', name: 'Default' },
          { id: 'team-b', name: 'B', rpm: 10 },
          { id: 'team-c', name: 'C', tpm: 1000 },
        ],
        model_groups: [
          ...baseConfig().model_groups,
          { name: 'slow', deployments: [openaiDeployment('slow-up', up.url)] },
        ],
        keys,
        plugins: [{ use: 'auth' }, { use: 'rate-limit' }, { use: 'router' }, { use: 'tracing' }],
      }),
    );
    const [a, b = a] = gw.urls;
    const at = (i: number) => gw.urls[i % gw.urls.length];

    t.test('key rpm 600: 600 concurrent requests of 650 pass, the rest are 429 rate_limit_exceeded', async (t) => {
      await roomInMinute(8);
      const statuses = await burst(650, 25, (i) => chat(at(i), key('rpm600')));
      t.equal(count(statuses, 200), 600, 'exactly the limit passed, across every gateway');
      t.equal(count(statuses, 429), 50);
      const refused = await chat(b, key('rpm600'));
      await checkRefusal(t, refused, 'rate_limit_exceeded', /key 'rpm600' allows 600 requests per minute/);
      const trace = await waitForTrace(gw, 'default', refused.headers.get('x-svc-request-id')!);
      t.match(
        trace,
        { status: 'error', statusCode: 429, errorCode: 'rate_limit_exceeded', tokens: 0, cost: 0 },
        'the refusal is traced with zero usage',
      );
    });

    t.test('project rpm 10: shared by the keys of the project, and not by other projects', async (t) => {
      await roomInMinute(5);
      const statuses = await burst(10, 5, (i) => chat(at(i), key(i % 2 === 0 ? 'b1' : 'b2')));
      t.same(statuses, new Array(10).fill(200), 'requests 1 to 10 pass, from two keys');
      await checkRefusal(
        t,
        await chat(a, key('b2')),
        'rate_limit_exceeded',
        /project 'team-b' allows 10 requests per minute/,
      );
      await checkRefusal(t, await chat(b, key('b1')), 'rate_limit_exceeded', /project 'team-b'/);
      t.equal((await chat(a, key('c1'), { max_tokens: 10 })).status, 200, 'another project is not limited by it');
    });

    for (const stream of [false, true]) {
      t.test(
        `key tpm 2000, ${stream ? 'streamed' : 'non-streamed'}: reserved at admission, settled to real usage`,
        async (t) => {
          await roomInMinute(5);
          const alias = stream ? 'tpm-stream' : 'tpm';
          const apiKey = key(alias);
          // Prompt estimate + max_tokens = 2001: over the limit on an empty window.
          const over = await chat(a, apiKey, { max_tokens: 2000 - HELLO_PROMPT + 1, stream });
          await checkRefusal(t, over, 'tokens_limit_exceeded', /key '[a-z-]+' allows 2000 tokens per minute/);
          // Exactly 2000 reserved: admitted.
          const first = await chat(a, apiKey, {
            max_tokens: 2000 - HELLO_PROMPT,
            stream,
            ...(stream ? { stream_options: { include_usage: true } } : {}),
          });
          t.equal(first.status, 200);
          const used = stream ? lastUsage(await first.text()) : (await first.json()).usage.total_tokens;
          t.ok(used > HELLO_PROMPT && used < 100, `the answer used ${used} tokens`);
          await settled(gw, alias, used);
          // Left: 2000 - used. One token more than that is refused; exactly that passes (on the other gateway).
          await checkRefusal(
            t,
            await chat(b, apiKey, { max_tokens: 2000 - used - HELLO_PROMPT + 1, stream }),
            'tokens_limit_exceeded',
            /2000 tokens per minute/,
          );
          const fits = await chat(b, apiKey, { max_tokens: 2000 - used - HELLO_PROMPT, stream });
          t.equal(fits.status, 200, 'the settled window has exactly the rest');
          await fits.arrayBuffer();
        },
      );
    }

    t.test('a client that leaves mid-stream: settled to the usage the gateway read after it left', async (t) => {
      await roomInMinute(5);
      const pieces = Array.from({ length: 20 }, (_, i) => `w${i} `);
      up.queue.push({ type: 'stream', pieces, gapMs: 15 });
      const controller = new AbortController();
      const res = await chat(
        a,
        key('tpm-leaves'),
        { model: 'slow', stream: true, max_tokens: 2000 - HELLO_PROMPT },
        { signal: controller.signal },
      );
      t.equal(res.status, 200);
      const reader = res.body!.getReader();
      t.notOk((await reader.read()).done, 'the first bytes arrived');
      controller.abort();
      await reader.cancel().catch(() => {});
      // The fake upstream reports 12 prompt tokens and one completion token a piece.
      const used = 12 + pieces.length;
      // The gateway reads the rest of the stream (20 pieces, 15 ms apart) after the client left, then settles.
      await settled(gw, 'tpm-leaves', used);
      up.fallback = { type: 'ok' };
      await checkRefusal(
        t,
        await chat(b, key('tpm-leaves'), { model: 'slow', max_tokens: 2000 - used - HELLO_PROMPT + 1 }),
        'tokens_limit_exceeded',
        /2000 tokens/,
      );
      t.equal(
        (await chat(b, key('tpm-leaves'), { model: 'slow', max_tokens: 2000 - used - HELLO_PROMPT })).status,
        200,
        'the reservation was settled to real usage',
      );
    });

    t.test('project tpm 1000: an embeddings request is reserved by its input alone', async (t) => {
      await roomInMinute(5);
      const embed = (input: string) =>
        fetch(`${a}/v1/embeddings`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key('c1')}` },
          body: JSON.stringify({ model: 'demo', input }),
        });
      const tooLong = await embed('x'.repeat(4 * 1000 + 1));
      await checkRefusal(t, tooLong, 'tokens_limit_exceeded', /project 'team-c' allows 1000 tokens per minute/);
      const res = await embed('x'.repeat(4 * 900));
      t.equal(res.status, 200, 'an input of 900 tokens fits');
    });
  });
}

t.test('Redis unreachable: 503 gateway_config_stale and /ready 503 until it is back', async (t) => {
  const proxy = await startTcpProxy(t, { host: '127.0.0.1', port: Number(new URL(REDIS_URL).port || 6379) });
  const { gatewayUrl } = await startTestService(
    t,
    baseConfig({
      store: { redis_url: `redis://${proxy.host}:${proxy.port}`, redis_prefix: redisTestPrefix(t) },
      keys: [{ alias: 'test', key: key('r'), project: 'default', model_groups: ['demo'], rpm: 100 }],
      plugins: [{ use: 'auth' }, { use: 'rate-limit' }, { use: 'router' }],
    }),
  );
  t.equal((await chat(gatewayUrl, key('r'))).status, 200);
  t.equal((await fetch(`${gatewayUrl}/ready`)).status, 200);

  proxy.cut();
  const refused = await waitFor('a 503', async () => {
    const res = await chat(gatewayUrl, key('r'));
    return res.status === 503 ? res : undefined;
  });
  t.match(await refused.json(), { error: { code: 'gateway_config_stale', type: 'server_error' } });
  const ready = await fetch(`${gatewayUrl}/ready`);
  t.equal(ready.status, 503);
  t.match(await ready.json(), { status: 'unavailable', reason: 'counters_unavailable' });
  t.equal((await fetch(`${gatewayUrl}/health`)).status, 200, 'the process itself is healthy');

  proxy.restore();
  await waitFor('ready again', async () => (await fetch(`${gatewayUrl}/ready`)).status === 200);
  t.equal((await chat(gatewayUrl, key('r'))).status, 200, 'served again once Redis is back');
});

t.test(
  'Redis frozen (connected, not answering): /ready 503 within seconds, requests refused at once, until it answers',
  async (t) => {
    const proxy = await startTcpProxy(t, { host: '127.0.0.1', port: Number(new URL(REDIS_URL).port || 6379) });
    const { gatewayUrl } = await startTestService(
      t,
      baseConfig({
        store: { redis_url: `redis://${proxy.host}:${proxy.port}`, redis_prefix: redisTestPrefix(t) },
        keys: [{ alias: 'test', key: key('f'), project: 'default', model_groups: ['demo'], rpm: 100 }],
        plugins: [{ use: 'auth' }, { use: 'rate-limit' }, { use: 'router' }],
      }),
    );
    t.equal((await chat(gatewayUrl, key('f'))).status, 200);
    t.equal((await fetch(`${gatewayUrl}/ready`)).status, 200);

    proxy.stall();
    // The bound: "within a few seconds" of Redis not answering (a ping a second, 500 ms to answer).
    await waitFor('/ready 503', async () => (await fetch(`${gatewayUrl}/ready`)).status === 503, 5_000);
    const ready = await fetch(`${gatewayUrl}/ready`);
    t.match(await ready.json(), { status: 'unavailable', reason: 'counters_unavailable' }, '/ready names the counters');
    t.equal((await fetch(`${gatewayUrl}/health`)).status, 200, 'the process itself is healthy');
    const heldBefore = proxy.held;
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const res = await chat(gatewayUrl, key('f'));
      const ms = performance.now() - started;
      t.equal(res.status, 503, `request ${i + 1}: 503`);
      t.match(await res.json(), { error: { code: 'gateway_config_stale', type: 'server_error' } });
      // The command timeout is 1 s; a request refused without asking Redis answers in a few milliseconds.
      t.ok(ms < 500, `request ${i + 1} refused without waiting for Redis (${Math.round(ms)} ms)`);
    }
    t.ok(proxy.held - heldBefore < 200, 'the refused requests sent Redis nothing (only pings are held)');

    proxy.restore();
    await waitFor('ready again', async () => (await fetch(`${gatewayUrl}/ready`)).status === 200);
    t.equal((await chat(gatewayUrl, key('f'))).status, 200, 'served again once Redis answers');
  },
);

function waitForTrace(gw: { service: { db: Parameters<typeof getTrace>[0] } }, project: string, id: string) {
  return waitFor('the trace', () => getTrace(gw.service.db, project, id));
}

/** total_tokens of the usage chunk of an SSE body. */
function lastUsage(sse: string): number {
  const usage = sse
    .split('\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)))
    .find((c) => c.usage)?.usage;
  return usage.total_tokens;
}
