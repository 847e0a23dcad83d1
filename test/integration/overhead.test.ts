// x-svc-overhead-ms and its /metrics histogram: the header on every kind of answer (through the openai SDK where a
// client reads it), the provider's time (a 300 ms fake, a 300 ms backoff, the gaps of a stream) left out of it, and
// one observation per answered request in both /metrics forms.
import OpenAI from 'openai';
import t, { type Test } from 'tap';
import { startFakeOpenAI } from '../helpers/fake-openai.ts';
import { TEST_KEY, baseConfig, openaiDeployment, postJson, startTestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

/** What the fake provider spends before it answers (and, for a stream, between its chunks). */
const PROVIDER_MS = 300;
const GAP_MS = 100;

const up = await startFakeOpenAI();
t.teardown(() => up.close());

const { gatewayUrl, adminUrl } = await startTestService(
  t,
  baseConfig({
    model_groups: [
      {
        name: 'fake',
        created_at: '2026-11-21T00:00:00Z',
        routing: { retries: 1, max_backoff_ms: 2_000 },
        deployments: [openaiDeployment('fake-up', up.url)],
      },
    ],
    keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['fake'] }],
    plugins: [{ use: 'auth' }, { use: 'cache' }, { use: 'router' }],
  }),
);
const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gatewayUrl}/v1`, maxRetries: 0 });

let unique = 0;
/** A question no other test asks, so the cache answers only where a test repeats one on purpose. */
const question = () => [{ role: 'user' as const, content: `question ${++unique}` }];

/** The header as a number, after checking it is a plain non-negative decimal in ms to the µs. */
function overheadOf(t: Test, headers: Headers): number {
  const value = headers.get('x-svc-overhead-ms');
  t.match(value, /^\d+\.\d{3}$/, `x-svc-overhead-ms is a non-negative number of ms (${value})`);
  return Number(value);
}

interface HistogramReading {
  json: { count: number; sum: number; buckets: { le: number | '+Inf'; count: number }[] };
  promCount: number;
  promSum: number;
}

async function histogram(): Promise<HistogramReading> {
  const json = ((await (await fetch(`${adminUrl}/metrics`)).json()) as any).overhead_ms;
  const text = await (await fetch(`${adminUrl}/metrics?format=prometheus`)).text();
  const line = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  return {
    json,
    promCount: line('svc_gateway_overhead_seconds_count'),
    promSum: line('svc_gateway_overhead_seconds_sum'),
  };
}

/**
 * Runs one request and checks the histogram grew by exactly one observation in both forms (recorded once the
 * request's last hook ran, which may be after the client read the end). Returns what it grew by, in ms.
 */
async function oneObservation(t: Test, request: () => Promise<void>): Promise<{ addedMs: number }> {
  const before = await histogram();
  await request();
  const after = await waitFor('the overhead observation', async () => {
    const now = await histogram();
    return now.json.count > before.json.count && now;
  });
  t.equal(after.json.count, before.json.count + 1, 'one more observation in the JSON form');
  t.equal(after.promCount, before.promCount + 1, 'one more observation in the Prometheus form');
  t.same(after.json.buckets.at(-1), { le: '+Inf', count: after.json.count }, 'the +Inf bucket holds every one');
  t.ok(Math.abs((after.promSum - before.promSum) * 1000 - (after.json.sum - before.json.sum)) < 0.01, 'same sums');
  return { addedMs: after.json.sum - before.json.sum };
}

t.test("a non-streamed answer: the provider's 300 ms are not overhead", async (t) => {
  up.queue.push({ type: 'delay', ms: PROVIDER_MS, then: { type: 'ok' } });
  let overhead = 0;
  const { addedMs } = await oneObservation(t, async () => {
    const started = performance.now();
    const { data, response } = await client.chat.completions
      .create({ model: 'fake', messages: question() })
      .withResponse();
    const total = performance.now() - started;
    t.equal(data.choices[0].message.content, 'Hello from fake');
    overhead = overheadOf(t, response.headers);
    t.ok(overhead < PROVIDER_MS, `overhead ${overhead} ms < the provider's ${PROVIDER_MS} ms`);
    t.ok(total - overhead >= PROVIDER_MS, `total ${total} ms - overhead >= the provider's ${PROVIDER_MS} ms`);
  });
  t.ok(Math.abs(addedMs - overhead) <= 0.002, `the histogram got the header's value (${addedMs} / ${overhead})`);
});

t.test(
  "a stream: the header's overhead is to the first byte, the histogram's to the end, without the gaps",
  async (t) => {
    up.queue.push({ type: 'delay', ms: PROVIDER_MS, then: { type: 'stream', gapMs: GAP_MS } });
    let overhead = 0;
    const { addedMs } = await oneObservation(t, async () => {
      const started = performance.now();
      const { data: stream, response } = await client.chat.completions
        .create({ model: 'fake', messages: question(), stream: true })
        .withResponse();
      const toHeaders = performance.now() - started;
      overhead = overheadOf(t, response.headers);
      t.ok(overhead < PROVIDER_MS, `overhead ${overhead} ms < the provider's ${PROVIDER_MS} ms to its first chunk`);
      t.ok(toHeaders - overhead >= PROVIDER_MS, `time to the headers ${toHeaders} ms - overhead >= ${PROVIDER_MS} ms`);
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      t.equal(text, 'Hello from fake');
    });
    // Five chunks with 100 ms after each: the histogram holds the work on them, never the waits between them.
    t.ok(addedMs >= overhead - 0.002, `the histogram's overhead ${addedMs} ms includes the first byte's ${overhead}`);
    t.ok(addedMs < GAP_MS, `and not the provider's ${GAP_MS} ms gaps between chunks (${addedMs} ms)`);
  },
);

t.test('a backoff wait the provider asked for is not overhead', async (t) => {
  up.queue.push({ type: 'error', status: 429, headers: { 'retry-after-ms': String(PROVIDER_MS) } }, { type: 'ok' });
  await oneObservation(t, async () => {
    const started = performance.now();
    const { response } = await client.chat.completions.create({ model: 'fake', messages: question() }).withResponse();
    const total = performance.now() - started;
    t.match(JSON.parse(response.headers.get('x-svc-attempts')!), [{ o: 'retryable', st: 429 }, { o: 'ok' }]);
    const overhead = overheadOf(t, response.headers);
    t.ok(overhead < PROVIDER_MS, `overhead ${overhead} ms < the ${PROVIDER_MS} ms backoff`);
    t.ok(total - overhead >= PROVIDER_MS, `total ${total} ms - overhead >= the ${PROVIDER_MS} ms backoff`);
  });
});

t.test('embeddings', async (t) => {
  await oneObservation(t, async () => {
    const { data, response } = await client.embeddings.create({ model: 'fake', input: 'hello' }).withResponse();
    t.equal(data.data.length, 1);
    overheadOf(t, response.headers);
  });
});

t.test('cache hits, answered as JSON and as a stream', async (t) => {
  const messages = question();
  await oneObservation(t, async () => {
    await client.chat.completions.create({ model: 'fake', messages });
  });
  await oneObservation(t, async () => {
    const { response } = await client.chat.completions.create({ model: 'fake', messages }).withResponse();
    t.equal(response.headers.get('x-svc-cache'), 'hit');
    overheadOf(t, response.headers);
  });
  await oneObservation(t, async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'fake', messages, stream: true })
      .withResponse();
    t.equal(response.headers.get('x-svc-cache'), 'hit');
    overheadOf(t, response.headers);
    for await (const _ of stream);
  });
});

t.test('the models list', async (t) => {
  await oneObservation(t, async () => {
    const { data, response } = await client.models.list().withResponse();
    t.same(
      data.data.map((m) => m.id),
      ['fake'],
    );
    overheadOf(t, response.headers);
  });
});

t.test('refusals the gateway answers itself: a wrong key, a body that is not JSON, an unknown route', async (t) => {
  await oneObservation(t, async () => {
    const stranger = new OpenAI({ apiKey: 'sk-not-a-key', baseURL: `${gatewayUrl}/v1`, maxRetries: 0 });
    const err = await stranger.chat.completions.create({ model: 'fake', messages: question() }).catch((e) => e);
    t.ok(err instanceof OpenAI.AuthenticationError, 'the SDK raises its 401 error');
    overheadOf(t, (err as InstanceType<typeof OpenAI.APIError>).headers as Headers);
  });
  await oneObservation(t, async () => {
    const res = await postJson(gatewayUrl, '/v1/chat/completions', '{"model": ');
    t.equal(res.status, 400);
    t.equal(((await res.json()) as any).error.code, 'invalid_json');
    overheadOf(t, res.headers);
  });
  await oneObservation(t, async () => {
    const res = await postJson(gatewayUrl, '/v1/chat/completions', 'hello', { 'content-type': 'text/plain' });
    t.equal(res.status, 415, 'refused before its body was read');
    overheadOf(t, res.headers);
    await res.body?.cancel();
  });
  await oneObservation(t, async () => {
    const res = await fetch(`${gatewayUrl}/v1/completions`, { method: 'POST' });
    t.equal(res.status, 404);
    overheadOf(t, res.headers);
    await res.body?.cancel();
  });
});
