// A large client body (from 256 KiB) has its provider payload serialised on the worker pool, not on the thread that
// serves: the bytes the provider receives are the payload the gateway would have written itself, streamed or not, on
// the OpenAI wire and on Anthropic's. Below the size the payload is written inline.
import OpenAI from 'openai';
import t from 'tap';
import { WORKER_TASK_FILES } from '../../src/runtime/worker-tasks.ts';
import { PAYLOAD_IN_WORKER_BYTES, payloadBytes } from '../../src/gateway/providers/payload-bytes.ts';
import { createWorkerPool } from '../../src/platform/workers/pool.ts';
import type { ProviderServices } from '../../src/gateway/providers/types.ts';
import { startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { startFakeOpenAI } from '../helpers/fake-openai.ts';
import { TEST_KEY, baseConfig, openaiDeployment, startTestService } from '../helpers/service.ts';

/** A user message of `bytes` characters of prose, with quotes and a newline for JSON to escape. */
const prose = (bytes: number) =>
  'He said "the gateway reads every word"\nand went on. '.repeat(Math.ceil(bytes / 52)).slice(0, bytes);

t.test('payloadBytes: from PAYLOAD_IN_WORKER_BYTES on, the JSON bytes come from a worker thread', async (t) => {
  const workers = createWorkerPool(WORKER_TASK_FILES, { maxThreads: 1 });
  t.teardown(() => workers.close());
  const services = { workers } as ProviderServices;
  const payload = { model: 'm', messages: [{ role: 'user', content: prose(300_000) }], temperature: 0.5 };

  const large = await payloadBytes(services, payload, { bodyBytes: PAYLOAD_IN_WORKER_BYTES });
  t.ok(large instanceof Uint8Array, 'moved back as bytes');
  t.equal(Buffer.from(large as Uint8Array).toString('utf8'), JSON.stringify(payload), 'exactly JSON.stringify');

  const small = await payloadBytes(services, payload, { bodyBytes: PAYLOAD_IN_WORKER_BYTES - 1 });
  t.equal(small, JSON.stringify(payload), 'below the size: serialised inline, as text');
  t.equal(await payloadBytes(services, payload, {}), JSON.stringify(payload), 'no size given: inline');
});

t.test('a 300 KB chat reaches an OpenAI-wire provider as the gateway payload, streamed and not', async (t) => {
  const up = await startFakeOpenAI();
  t.teardown(() => up.close());
  const { gatewayUrl } = await startTestService(
    t,
    baseConfig({
      model_groups: [{ name: 'up', deployments: [openaiDeployment('big-up', up.url)] }],
      keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['up'] }],
    }),
  );
  const client = new OpenAI({ baseURL: `${gatewayUrl}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  const messages = [
    { role: 'system' as const, content: 'Answer briefly. ünïcødé ✓' },
    { role: 'user' as const, content: prose(300_000) },
  ];

  const answer = await client.chat.completions.create({ model: 'up', messages, temperature: 0.25 });
  t.equal(answer.object, 'chat.completion');
  t.same(
    up.requests.at(-1)!.body,
    { model: 'model-big-up', messages, temperature: 0.25 },
    'the provider got the client body with its model',
  );

  const stream = await client.chat.completions.create({ model: 'up', messages, stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  t.ok(text.length > 0, 'the stream answered');
  t.same(
    up.requests.at(-1)!.body,
    { model: 'model-big-up', messages, stream: true, stream_options: { include_usage: true } },
    'a stream asks for usage',
  );
});

t.test('a 300 KB chat reaches Anthropic translated, from the worker thread', async (t) => {
  const up = await startFakeAnthropic();
  t.teardown(() => up.close());
  const { gatewayUrl } = await startTestService(
    t,
    baseConfig({
      model_groups: [
        {
          name: 'claude',
          deployments: [
            { id: 'claude-big', provider: 'anthropic', base_url: up.url, api_key: 'ak', model: 'claude-x' },
          ],
        },
      ],
      keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['claude'] }],
    }),
  );
  const client = new OpenAI({ baseURL: `${gatewayUrl}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  const content = prose(300_000);
  const answer = await client.chat.completions.create({
    model: 'claude',
    messages: [{ role: 'user', content }],
    max_tokens: 50,
  });
  t.equal(answer.object, 'chat.completion');
  const sent = up.requests.at(-1)!.body;
  t.equal(sent.model, 'claude-x');
  t.equal(sent.max_tokens, 50);
  t.same(
    sent.messages,
    [{ role: 'user', content: [{ type: 'text', text: content }] }],
    'the long message arrives whole',
  );
});
