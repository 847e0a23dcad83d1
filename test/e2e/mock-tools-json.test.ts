// The mock provider's tool calls and JSON modes, as the official `openai` SDK sees them through the running
// service: a whole tool loop (by hand and with the SDK's runner), streamed tool-call deltas the SDK reassembles,
// json_object and json_schema answers (checked with ajv), and the same answer for the same request.
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionTool } from 'openai/resources/chat/completions';
import t from 'tap';
import { TEST_KEY, baseConfig, startTestService } from '../helpers/service.ts';
import { createAjv } from '../../src/platform/validation/ajv.ts';

const { gatewayUrl } = await startTestService(t, baseConfig());
const client = new OpenAI({ baseURL: `${gatewayUrl}/v1`, apiKey: TEST_KEY, maxRetries: 0, timeout: 10_000 });
const ajv = createAjv();

const weatherParameters = {
  type: 'object',
  additionalProperties: false,
  required: ['city', 'unit', 'days'],
  properties: {
    city: { type: 'string', description: 'City name' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
  },
};
const tools: ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: weatherParameters } },
  {
    type: 'function',
    function: {
      name: 'get_time',
      parameters: { type: 'object', required: ['zone'], properties: { zone: { type: 'string' } } },
    },
  },
];
const question = { role: 'user' as const, content: 'Weather in Paris?' };
const toolRequest: ChatCompletionCreateParamsNonStreaming = { model: 'demo', messages: [question], tools };

const forecastSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['city', 'days', 'high', 'sunny', 'alerts', 'updated'],
  properties: {
    city: { type: 'string' },
    days: { type: 'array', minItems: 2, items: { $ref: '#/$defs/day' } },
    high: { type: 'number', minimum: -50, maximum: 60 },
    sunny: { type: 'boolean' },
    alerts: { type: ['string', 'null'] },
    updated: { type: 'string', format: 'date-time' },
  },
  $defs: {
    day: {
      type: 'object',
      additionalProperties: false,
      required: ['date', 'sky'],
      properties: { date: { type: 'string', format: 'date' }, sky: { enum: ['clear', 'cloudy', 'rain'] } },
    },
  },
};
const schemaFormat = {
  type: 'json_schema' as const,
  json_schema: { name: 'forecast', strict: true, schema: forecastSchema },
};

t.test('a tool loop: call, tool result, final answer that uses it', async (t) => {
  const first = await client.chat.completions.create(toolRequest);
  const choice = first.choices[0];
  t.equal(choice.finish_reason, 'tool_calls');
  t.equal(choice.message.content, null);
  t.equal(choice.message.tool_calls?.length, 1);
  const call = choice.message.tool_calls![0];
  t.equal(call.type, 'function');
  t.match(call.id, /^call_[0-9a-f]{24}$/);
  if (call.type !== 'function') return;
  t.equal(call.function.name, 'get_weather', 'the first tool when tool_choice is not given');
  const args = JSON.parse(call.function.arguments);
  t.ok(ajv.validate(weatherParameters, args), ajv.errorsText(ajv.errors));
  t.same(args, { city: 'Weather in Paris?', unit: 'celsius', days: 1 });
  const usage = first.usage!;
  const plain = await client.chat.completions.create({ model: 'demo', messages: [question] });
  t.ok(usage.prompt_tokens > plain.usage!.prompt_tokens, 'the tool definitions count as prompt tokens');
  t.ok(usage.completion_tokens > 0);
  t.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);

  const second = await client.chat.completions.create({
    ...toolRequest,
    messages: [
      question,
      choice.message,
      { role: 'tool', tool_call_id: call.id, content: '{"temperature":21,"sky":"clear"}' },
    ],
  });
  t.equal(second.choices[0].finish_reason, 'stop');
  t.equal(second.choices[0].message.tool_calls, undefined);
  t.equal(
    second.choices[0].message.content,
    'This is mock-small, the svc mock provider. get_weather returned: "{"temperature":21,"sky":"clear"}"',
  );
});

t.test("the SDK's runTools loop calls the function once and ends on the mock's text", async (t) => {
  const calls: unknown[] = [];
  const runner = client.chat.completions.runTools({
    model: 'demo',
    messages: [question],
    tools: [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'The forecast for a city',
          parameters: weatherParameters,
          parse: JSON.parse,
          function: (args: unknown) => {
            calls.push(args);
            return { temperature: 21 };
          },
        },
      },
    ],
  });
  const content = await runner.finalContent();
  t.same(calls, [{ city: 'Weather in Paris?', unit: 'celsius', days: 1 }]);
  t.equal(content, 'This is mock-small, the svc mock provider. get_weather returned: "{"temperature":21}"');
  t.equal((await runner.totalUsage()).completion_tokens > 0, true);
});

t.test('tool_choice: a named function is called; none answers in text; an unknown name is a 400', async (t) => {
  const named = await client.chat.completions.create({
    ...toolRequest,
    tool_choice: { type: 'function', function: { name: 'get_time' } },
  });
  const call = named.choices[0].message.tool_calls![0];
  t.equal(call.type === 'function' && call.function.name, 'get_time');
  t.equal(call.type === 'function' && call.function.arguments, '{"zone":"Weather in Paris?"}');

  const none = await client.chat.completions.create({ ...toolRequest, tool_choice: 'none' });
  t.equal(none.choices[0].finish_reason, 'stop');
  t.equal(none.choices[0].message.content, 'This is mock-small, the svc mock provider. You said: "Weather in Paris?"');

  const err = await client.chat.completions
    .create({ ...toolRequest, tool_choice: { type: 'function', function: { name: 'missing' } } })
    .catch((e: unknown) => e);
  t.ok(err instanceof OpenAI.BadRequestError, String(err));
  t.equal((err as InstanceType<typeof OpenAI.BadRequestError>).code, 'invalid_request');
  t.match((err as Error).message, /'missing', which is not in tools/);
});

t.test(
  'a streamed tool call: index, id, type and name first, then argument chunks, reassembled by the SDK',
  async (t) => {
    const stream = await client.chat.completions.create({
      ...toolRequest,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const deltas = chunks.filter((c) => c.choices[0]?.delta?.tool_calls).map((c) => c.choices[0].delta.tool_calls![0]);
    const [opening, ...rest] = deltas;
    t.match(opening, { index: 0, id: /^call_/, type: 'function', function: { name: 'get_weather', arguments: '' } });
    t.ok(rest.length > 3, 'the arguments come in several chunks');
    t.same(
      rest.map((d) => ({ ...d, function: { ...d.function, arguments: '…' } })),
      rest.map(() => ({ index: 0, function: { arguments: '…' } })),
      'later chunks carry the index and a piece of the arguments only',
    );
    t.equal(chunks.at(-2)!.choices[0].finish_reason, 'tool_calls');
    t.ok(chunks.at(-1)!.usage!.completion_tokens > 0);

    const helper = client.chat.completions.stream({ ...toolRequest, stream: true });
    const streamed = await helper.finalChatCompletion();
    const whole = await client.chat.completions.create(toolRequest);
    t.same(streamed.choices[0].message.tool_calls, whole.choices[0].message.tool_calls, 'the same call as unstreamed');
    t.equal(streamed.choices[0].finish_reason, 'tool_calls');
  },
);

t.test('json_object: a JSON object string, streamed and not', async (t) => {
  const request = {
    model: 'demo',
    messages: [question],
    response_format: { type: 'json_object' as const },
  };
  const res = await client.chat.completions.create(request);
  t.equal(res.choices[0].finish_reason, 'stop');
  t.same(JSON.parse(res.choices[0].message.content!), {
    answer: 'This is mock-small, the svc mock provider. You said: "Weather in Paris?"',
  });
  const stream = await client.chat.completions.create({ ...request, stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  t.equal(text, res.choices[0].message.content);

  const cut = await client.chat.completions.create({ ...request, max_tokens: 3 });
  t.equal(cut.choices[0].finish_reason, 'length', 'max_tokens cuts JSON as a real model would');
  t.equal(cut.usage!.completion_tokens, 3);
});

t.test('json_schema: JSON that validates against the schema, streamed and not, and through parse()', async (t) => {
  const request = { model: 'demo', messages: [question], response_format: schemaFormat };
  const res = await client.chat.completions.create(request);
  const value = JSON.parse(res.choices[0].message.content!);
  t.ok(ajv.validate(forecastSchema, value), ajv.errorsText(ajv.errors));
  t.equal(value.city, 'Weather in Paris?');
  t.equal(value.days.length, 2);
  t.ok(res.usage!.completion_tokens > 10);

  const stream = await client.chat.completions.create({ ...request, stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  t.equal(text, res.choices[0].message.content);

  const parsed = await client.chat.completions.parse(request);
  t.same(parsed.choices[0].message.parsed, value);
});

t.test('the same request twice gives the same answer', async (t) => {
  for (const request of [
    toolRequest,
    { model: 'demo', messages: [question], response_format: schemaFormat },
    { model: 'demo', messages: [question] },
  ]) {
    const [a, b] = [await client.chat.completions.create(request), await client.chat.completions.create(request)];
    t.not(a.id, b.id, 'two completions');
    t.same(b.choices, a.choices);
    t.same(b.usage, a.usage);
  }
});
