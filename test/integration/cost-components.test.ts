// Cost that matches the invoice: provider usage from each family (OpenAI, Azure, Anthropic, Bedrock, Vertex Gemini
// and Claude on Vertex), as each reports it on the wire, priced per component through the real gateway with the
// official `openai` SDK. The trace's generation carries usage_details and cost_details under Langfuse's keys;
// x-svc-cost stays the total. Streams are costed from their usage chunk, also after the client left mid-stream.
import OpenAI from 'openai';
import t, { type Test } from 'tap';
import type { Queryable } from '../../src/platform/store/database.ts';
import { listObservationsOfTrace, type StoredObservation } from '../../src/platform/store/repos/observations.ts';
import { getTrace, type StoredTrace } from '../../src/platform/store/repos/traces.ts';
import { converseText, startFakeBedrock, textStream, type FakeBedrock } from '../helpers/fake-bedrock.ts';
import { anthropicFixture, startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-anthropic.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai.ts';
import { startFakeVertex, vertexDeployment, vertexFixture, type FakeVertex } from '../helpers/fake-vertex.ts';
import { TEST_KEY, baseConfig, startTestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

const CREATED = '2026-11-26T00:00:00Z';
// USD per Mtok, a different rate for every component so each one shows in the cost; the long-context rates are twice
// the others above 100k prompt tokens.
const RATES = {
  input_per_mtok: 1,
  cached_input_per_mtok: 0.1,
  cache_write_per_mtok: 1.25,
  cache_write_1h_per_mtok: 2,
  output_per_mtok: 4,
  reasoning_per_mtok: 5,
};
const PRICE = {
  ...RATES,
  long_context: {
    above_prompt_tokens: 100_000,
    input_per_mtok: 2,
    cached_input_per_mtok: 0.2,
    cache_write_per_mtok: 2.5,
    cache_write_1h_per_mtok: 4,
    output_per_mtok: 8,
    reasoning_per_mtok: 10,
  },
};
const AKID = 'AKIDFAKECOSTS';
const SECRET = 'fake-cost-secret';

const openaiUp = await startFakeOpenAI();
const anthropicUp = await startFakeAnthropic();
const bedrockUp = await startFakeBedrock(undefined, { credentials: { [AKID]: SECRET } });
const geminiUp = await startFakeVertex();
const claudeVertexUp = await startFakeVertex({ type: 'json', body: vertexFixture('claude-message.json') });
const fakes: { close(): Promise<void> }[] = [openaiUp, anthropicUp, bedrockUp, geminiUp, claudeVertexUp];
t.teardown(() => Promise.all(fakes.map((f) => f.close())));

const group = (name: string, deployment: Record<string, unknown>) => ({
  name,
  created_at: CREATED,
  routing: { retries: 0 },
  deployments: [{ price: PRICE, ...deployment }],
});
const groups = [
  group('openai', {
    id: 'openai-o',
    provider: 'openai',
    base_url: `${openaiUp.url}/v1`,
    api_key: 'k',
    model: 'o4-mini',
  }),
  group('azure', {
    id: 'azure-4o',
    provider: 'azure',
    base_url: openaiUp.url,
    deployment: 'gpt-4o',
    api_version: '2024-10-21',
    api_key: 'k',
  }),
  group('claude', { id: 'claude', provider: 'anthropic', base_url: anthropicUp.url, api_key: 'k', model: 'claude' }),
  group('bedrock', {
    id: 'bedrock-claude',
    provider: 'bedrock',
    model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
    base_url: bedrockUp.url,
    aws: { region: 'us-east-1', access_key_id: AKID, secret_access_key: SECRET },
  }),
  group('gemini', vertexDeployment('gemini', geminiUp, { price: PRICE })),
  group(
    'claude-vertex',
    vertexDeployment('claude-vertex', claudeVertexUp, {
      model: 'claude-sonnet-4-5@20250929',
      price: PRICE,
      gcp: {
        project: 'test-project',
        location: 'us-east5',
        credentials_json: claudeVertexUp.account.json,
        token_url: claudeVertexUp.tokenUrl,
      },
    }),
  ),
  // No price of its own: the built-in table's Claude Sonnet 4.5.
  {
    name: 'claude-builtin',
    created_at: CREATED,
    deployments: [
      { id: 'claude-b', provider: 'anthropic', base_url: anthropicUp.url, api_key: 'k', model: 'claude-sonnet-4-5' },
    ],
  },
];
const keys = [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: groups.map((g) => g.name) }];
const svc = await startTestService(
  t,
  baseConfig({ model_groups: groups, keys, plugins: [{ use: 'auth' }, { use: 'router' }, { use: 'tracing' }] }),
);
const db: Queryable = svc.service.db;
const client = new OpenAI({ baseURL: `${svc.gatewayUrl}/v1`, apiKey: TEST_KEY, maxRetries: 0, timeout: 10_000 });
const hello = [{ role: 'user' as const, content: 'What does the contract say?' }];

interface Traced {
  trace: StoredTrace;
  generation: StoredObservation;
}

async function traced(id: string): Promise<Traced> {
  const trace = await waitFor(`trace ${id} stored`, () => getTrace(db, 'default', id), 15_000);
  const [generation] = await listObservationsOfTrace(db, 'default', id);
  return { trace, generation };
}

/** USD per token of each component at PRICE, and at its long-context rates. */
const PER_TOKEN: Record<string, number> = {
  input: 1e-6,
  input_cached_tokens: 0.1e-6,
  input_cache_creation: 1.25e-6,
  input_cache_creation_1h: 2e-6,
  output: 4e-6,
  output_reasoning_tokens: 5e-6,
};
const LONG_PER_TOKEN = Object.fromEntries(Object.entries(PER_TOKEN).map(([k, usd]) => [k, usd * 2]));

/**
 * The generation's usage details are `tokens` (with `total`), and its cost details each component's tokens at its
 * rate in `perToken`, to a nano-dollar, and `total` their sum.
 */
function pricedAs(t: Test, generation: StoredObservation, tokens: Record<string, number>, perToken = PER_TOKEN) {
  t.same(generation.usageDetails, tokens, 'usage per component');
  const { total: _total, ...components } = tokens;
  const actual = generation.costDetails;
  t.same(Object.keys(actual).sort(), [...Object.keys(components), 'total'].sort(), 'the components priced');
  let sum = 0;
  for (const [key, n] of Object.entries(components)) {
    const usd = n * perToken[key];
    sum += usd;
    t.ok(Math.abs(actual[key] - usd) < 1e-12, `${key}: ${actual[key]} = ${n} × ${perToken[key]}`);
  }
  t.ok(Math.abs(actual.total - sum) < 1e-12, `total ${actual.total} = ${sum}`);
  t.equal(generation.totalCost, actual.total, "the generation's cost is the total");
}

/** A non-streamed answer: its trace's usage and cost details, and x-svc-cost the total. */
async function chat(t: Test, model: string): Promise<Traced & { header: number }> {
  const { response } = await client.chat.completions.create({ model, messages: hello }).withResponse();
  t.equal(response.headers.get('x-svc-cost-estimated'), 'false');
  const found = await traced(response.headers.get('x-svc-request-id')!);
  return { ...found, header: Number(response.headers.get('x-svc-cost')) };
}

/** The recorded Messages answer with other usage. */
const anthropicMessage = (usage: Record<string, unknown>) => ({
  ...anthropicFixture<Record<string, unknown>>('text-response.json'),
  usage,
});

const anthropicUsage = {
  input_tokens: 50,
  cache_creation_input_tokens: 3000,
  cache_read_input_tokens: 10_000,
  cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
  output_tokens: 200,
  service_tier: 'standard',
};
// 50 uncached input, 10,000 cache reads, 1,000 five-minute and 2,000 one-hour cache writes, 200 output.
const ANTHROPIC_USAGE_DETAILS = {
  input: 50,
  input_cached_tokens: 10_000,
  input_cache_creation: 1000,
  input_cache_creation_1h: 2000,
  output: 200,
  total: 13_250,
};

// An o-series answer: 2000 prompt tokens of which 1500 cached; 900 completion tokens of which 600 reasoning.
const O_SERIES_USAGE = {
  prompt_tokens: 2000,
  completion_tokens: 900,
  total_tokens: 2900,
  prompt_tokens_details: { cached_tokens: 1500, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 600,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
};
const O_SERIES_USAGE_DETAILS = {
  input: 500,
  input_cached_tokens: 1500,
  output: 300,
  output_reasoning_tokens: 600,
  total: 2900,
};

t.test('OpenAI: cache reads and reasoning tokens priced apart from input and output', async (t) => {
  const body = {
    id: 'chatcmpl-cost',
    object: 'chat.completion',
    created: 1_764_115_200,
    model: 'o4-mini-2025-04-16',
    choices: [{ index: 0, message: { role: 'assistant', content: 'March.', refusal: null }, finish_reason: 'stop' }],
    usage: O_SERIES_USAGE,
    service_tier: 'default',
    system_fingerprint: null,
  };
  openaiUp.queue.push({ type: 'json', body });
  const { generation, trace, header } = await chat(t, 'openai');
  pricedAs(t, generation, O_SERIES_USAGE_DETAILS);
  t.ok(Math.abs(header - generation.costDetails.total) < 1e-12, 'x-svc-cost is the total');
  t.equal(trace.cost, generation.totalCost, "the trace's cost is its generation's");
  t.equal(generation.attributes['gateway.price_source'], 'deployment');
});

t.test('Azure: the same usage fields, behind its deployment path', async (t) => {
  openaiUp.queue.push({
    type: 'json',
    body: {
      id: 'chatcmpl-azure',
      object: 'chat.completion',
      created: 1_764_115_200,
      model: 'gpt-4o-2024-11-20',
      prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }],
      choices: [{ index: 0, message: { role: 'assistant', content: 'March.' }, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: 1200,
        completion_tokens: 300,
        total_tokens: 1500,
        prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
      },
    },
  });
  const { generation, header } = await chat(t, 'azure');
  t.match(openaiUp.requests.at(-1)!.path, /^\/openai\/deployments\/gpt-4o\/chat\/completions/);
  pricedAs(t, generation, { input: 176, input_cached_tokens: 1024, output: 300, total: 1500 });
  t.ok(Math.abs(header - generation.costDetails.total) < 1e-12, 'x-svc-cost is the total');
});

t.test(
  'Anthropic: 5-minute and 1-hour cache writes at their own premiums, and the client sees the writes',
  async (t) => {
    anthropicUp.queue.push({ type: 'json', body: anthropicMessage(anthropicUsage) });
    const { data, response } = await client.chat.completions
      .create({ model: 'claude', messages: hello })
      .withResponse();
    t.same(data.usage, {
      prompt_tokens: 13_050,
      completion_tokens: 200,
      total_tokens: 13_250,
      prompt_tokens_details: {
        cached_tokens: 10_000,
        cache_creation_tokens: 3000,
        cache_creation_token_details: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
      },
    });
    const { generation } = await traced(response.headers.get('x-svc-request-id')!);
    pricedAs(t, generation, ANTHROPIC_USAGE_DETAILS);
    t.ok(Math.abs(Number(response.headers.get('x-svc-cost')) - generation.costDetails.total) < 1e-12);
  },
);

t.test('Anthropic: writes reported without a duration are priced as 5-minute writes', async (t) => {
  const { cache_creation: _split, ...unsplit } = anthropicUsage;
  anthropicUp.queue.push({ type: 'json', body: anthropicMessage(unsplit) });
  const { generation } = await chat(t, 'claude');
  pricedAs(t, generation, {
    input: 50,
    input_cached_tokens: 10_000,
    input_cache_creation: 3000,
    output: 200,
    total: 13_250,
  });
});

t.test('long context: a prompt above the threshold is priced at the long-context rates', async (t) => {
  anthropicUp.queue.push({
    type: 'json',
    body: anthropicMessage({ input_tokens: 90_000, cache_read_input_tokens: 20_000, output_tokens: 100 }),
  });
  const long = await chat(t, 'claude');
  pricedAs(
    t,
    long.generation,
    { input: 90_000, input_cached_tokens: 20_000, output: 100, total: 110_100 },
    LONG_PER_TOKEN,
  );
  t.equal(long.generation.attributes['gateway.price_tier'], 'long_context');
  t.ok(Math.abs(long.header - long.generation.costDetails.total) < 1e-12, 'x-svc-cost is the long-context total');

  anthropicUp.queue.push({
    type: 'json',
    body: anthropicMessage({ input_tokens: 80_000, cache_read_input_tokens: 20_000, output_tokens: 100 }),
  });
  const base = await chat(t, 'claude');
  pricedAs(t, base.generation, { input: 80_000, input_cached_tokens: 20_000, output: 100, total: 100_100 });
  t.notOk('gateway.price_tier' in base.generation.attributes, 'exactly at the threshold is not above it');
});

t.test('the built-in table prices a deployment without a price, and says which table', async (t) => {
  anthropicUp.queue.push({ type: 'json', body: anthropicMessage(anthropicUsage) });
  const { generation } = await chat(t, 'claude-builtin');
  // Claude Sonnet 4.5: $3 input, $0.30 reads, $3.75 5-minute writes, $6 1-hour writes, $15 output.
  const sonnet = {
    input: 3e-6,
    input_cached_tokens: 0.3e-6,
    input_cache_creation: 3.75e-6,
    input_cache_creation_1h: 6e-6,
    output: 15e-6,
  };
  pricedAs(t, generation, ANTHROPIC_USAGE_DETAILS, sonnet);
  t.match(generation.attributes['gateway.price_source'], /^builtin@\d{4}-\d{2}-\d{2}$/);
});

const bedrockUsage = {
  inputTokens: 100,
  outputTokens: 40,
  totalTokens: 1340,
  cacheReadInputTokens: 1000,
  cacheWriteInputTokens: 200,
};
// Converse reports writes without a duration: 5-minute writes.
const BEDROCK_USAGE_DETAILS = {
  input: 100,
  input_cached_tokens: 1000,
  input_cache_creation: 200,
  output: 40,
  total: 1340,
};

t.test('Bedrock: Converse cache reads and writes', async (t) => {
  bedrockUp.queue.push({ type: 'converse', body: converseText('March.', bedrockUsage) });
  const { generation, header } = await chat(t, 'bedrock');
  pricedAs(t, generation, BEDROCK_USAGE_DETAILS);
  t.ok(Math.abs(header - generation.costDetails.total) < 1e-12, 'x-svc-cost is the total');
});

t.test('Vertex Gemini: cached content and thoughts', async (t) => {
  geminiUp.queue.push({ type: 'json', body: vertexFixture('generate-text.json') });
  const { generation } = await chat(t, 'gemini');
  // promptTokenCount 120 of which 100 cached; 8 candidates and 50 thoughts.
  pricedAs(t, generation, { input: 20, input_cached_tokens: 100, output: 8, output_reasoning_tokens: 50, total: 178 });
});

t.test('Claude on Vertex: priced as Anthropic', async (t) => {
  const { generation } = await chat(t, 'claude-vertex');
  // 20 uncached input, 10 cache reads, 5 cache writes, 7 output.
  pricedAs(t, generation, { input: 20, input_cached_tokens: 10, input_cache_creation: 5, output: 7, total: 42 });
});

/** Streams `model` to the end; the trace's generation. */
async function streamed(t: Test, model: string): Promise<StoredObservation> {
  const { data, response } = await client.chat.completions
    .create({ model, messages: hello, stream: true, stream_options: { include_usage: true } })
    .withResponse();
  for await (const _chunk of data);
  t.equal(response.headers.get('x-svc-cost-estimated'), 'true', 'a stream header carries the admission estimate');
  return (await traced(response.headers.get('x-svc-request-id')!)).generation;
}

t.test('streams are costed per component from their usage', async (t) => {
  t.test('Anthropic: the cache-write split of message_start', async (t) => {
    anthropicUp.queue.push({ type: 'sse', fixture: 'cache-write-stream.sse' });
    pricedAs(t, await streamed(t, 'claude'), ANTHROPIC_USAGE_DETAILS);
  });
  t.test('OpenAI: the usage chunk with its details', async (t) => {
    openaiUp.queue.push({ type: 'stream', pieces: ['Mar', 'ch.'], usage: O_SERIES_USAGE });
    pricedAs(t, await streamed(t, 'openai'), O_SERIES_USAGE_DETAILS);
  });
  t.test('Bedrock: the metadata event', async (t) => {
    bedrockUp.queue.push({ type: 'stream', frames: textStream(['Mar', 'ch.'], bedrockUsage) });
    pricedAs(t, await streamed(t, 'bedrock'), BEDROCK_USAGE_DETAILS);
  });
  t.test('Vertex Gemini: the last usageMetadata', async (t) => {
    geminiUp.queue.push({ type: 'sse', events: vertexFixture('stream-text.json') });
    // promptTokenCount 40 of which 30 cached; 6 candidates and 30 thoughts.
    const tokens = { input: 10, input_cached_tokens: 30, output: 6, output_reasoning_tokens: 30, total: 76 };
    pricedAs(t, await streamed(t, 'gemini'), tokens);
  });
});

/** Reads the first chunk of a stream, then drops the connection; the trace id. */
async function readThenLeave(gatewayUrl: string, model: string): Promise<string> {
  const controller = new AbortController();
  const res = await fetch(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify({ model, messages: hello, stream: true }),
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  if ((await reader.read()).done) throw new Error('stream ended early');
  controller.abort();
  await reader.cancel().catch(() => {});
  return res.headers.get('x-svc-request-id')!;
}

t.test('a client that leaves mid-stream: the drained usage is costed per component', async (t) => {
  anthropicUp.queue.push({ type: 'sse', fixture: 'cache-write-stream.sse', gapMs: 20 });
  const { trace, generation } = await traced(await readThenLeave(svc.gatewayUrl, 'claude'));
  t.equal(trace.metadata['gateway.client_aborted'], true, 'the client left before the end');
  pricedAs(t, generation, ANTHROPIC_USAGE_DETAILS);
});

t.test('a client that leaves and a drain cut before the usage: the admission estimate, as a total', async (t) => {
  const cut = await startTestService(
    t,
    baseConfig({
      model_groups: groups.filter((g) => g.name === 'claude'),
      keys: [{ ...keys[0], model_groups: ['claude'] }],
      plugins: [{ use: 'auth' }, { use: 'router', config: { disconnect_drain_chunks: 1 } }, { use: 'tracing' }],
    }),
  );
  const before = anthropicUp.requests.length;
  anthropicUp.queue.push({ type: 'sse', fixture: 'cache-write-stream.sse', gapMs: 20 });
  const id = await readThenLeave(cut.gatewayUrl, 'claude');
  const trace = await waitFor(`trace ${id} stored`, () => getTrace(cut.service.db, 'default', id), 15_000);
  const [generation] = await listObservationsOfTrace(cut.service.db, 'default', id);
  t.equal(anthropicUp.requests.length, before + 1);
  t.same(generation.usageDetails, {}, 'no usage arrived');
  t.same(Object.keys(generation.costDetails), ['total'], 'no components without usage');
  t.ok(generation.costDetails.total > 0, 'the estimate made at admission');
  t.equal(trace.metadata['gateway.cost_estimated_at_admission'], true);
});
