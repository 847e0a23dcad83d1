// The Anthropic converters on their own: request mapping, response mapping, the stream decoder on recorded SSE
// transcripts, error mapping, and usage by the one rule (prompt = input + cache reads + cache writes).
import t, { type Test } from 'tap';
import { GatewayError } from '../../src/platform/errors/gateway-error.ts';
import type { ChatChunk } from '../../src/plugin-api/contract.ts';
import { anthropicHttpError, anthropicStreamError } from '../../src/gateway/providers/anthropic/error-mapping.ts';
import { JSON_RESPONSE_TOOL, toAnthropicRequest } from '../../src/gateway/providers/anthropic/request-translation.ts';
import { finishReasonOf, fromAnthropicResponse } from '../../src/gateway/providers/anthropic/response-translation.ts';
import { decodeAnthropicSse } from '../../src/gateway/providers/anthropic/stream-decoder.ts';
import { UpstreamError } from '../../src/plugin-api/errors.ts';
import { anthropicFixture, anthropicFixtureText } from '../helpers/fake-anthropic.ts';

const user = (content: unknown) => ({ role: 'user', content });
const req = (extra: Record<string, unknown> = {}, messages: unknown[] = [user('Hi')]) => ({
  model: 'g',
  messages,
  ...extra,
});
const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
};

function invalidRequest(t: Test, fn: () => unknown, pattern: RegExp) {
  try {
    fn();
    t.fail(`expected invalid_request matching ${pattern}`);
  } catch (err) {
    t.ok(err instanceof GatewayError && err.code === 'invalid_request' && err.status === 400, 'a 400 invalid_request');
    t.match((err as Error).message, pattern);
  }
}

t.test('request mapping', async (t) => {
  t.test('tool round trip: system + developer, tool_calls, merged tool results, following user text', async (t) => {
    const { openai, anthropic } = anthropicFixture('tool-round-trip.request.json');
    t.same(toAnthropicRequest(openai, { model: 'claude-sonnet-4-5' }), anthropic);
  });

  t.test('system messages anywhere go to `system`; empty texts are dropped', async (t) => {
    const out = toAnthropicRequest(
      req({}, [
        user('a'),
        { role: 'system', content: 'late rule' },
        { role: 'developer', content: '' },
        { role: 'assistant', content: 'b' },
      ]),
    );
    t.same(out.system, [{ type: 'text', text: 'late rule' }]);
    t.same(out.messages, [
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
    ]);
  });

  t.test('images: data URLs become base64 sources, http URLs url sources', async (t) => {
    const out = toAnthropicRequest(
      req({}, [
        user([
          { type: 'text', text: 'What is in these?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'high' } },
        ]),
      ]),
    );
    t.same((out.messages as any)[0].content, [
      { type: 'text', text: 'What is in these?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
    invalidRequest(
      t,
      () => toAnthropicRequest(req({}, [user([{ type: 'image_url', image_url: { url: 'data:image/png,rawbytes' } }])])),
      /base64/,
    );
    invalidRequest(
      t,
      () => toAnthropicRequest(req({}, [user([{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }])])),
      /data URL or an http/,
    );
    invalidRequest(
      t,
      () => toAnthropicRequest(req({}, [user([{ type: 'input_audio', input_audio: {} }])])),
      /input_audio/,
    );
  });

  t.test('file parts with inline data become document blocks', async (t) => {
    const out = toAnthropicRequest(
      req({}, [
        user([
          { type: 'file', file: { filename: 'report.pdf', file_data: 'data:application/pdf;base64,JVBERi0xLjQ=' } },
        ]),
      ]),
    );
    t.same((out.messages as any)[0].content, [
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQ=' },
        title: 'report.pdf',
      },
    ]);
    invalidRequest(
      t,
      () => toAnthropicRequest(req({}, [user([{ type: 'file', file: { file_id: 'file-abc' } }])])),
      /file ids are not supported/,
    );
  });

  t.test('consecutive same-role turns merge; tool results lead their user turn', async (t) => {
    const out = toAnthropicRequest(
      req({}, [
        user('one'),
        user([{ type: 'text', text: 'two' }]),
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '' } }],
        },
        user('aside'),
        { role: 'tool', tool_call_id: 'toolu_1', content: 'result' },
        { role: 'assistant', content: 'x' },
        { role: 'assistant', content: 'y' },
      ]),
    );
    t.same(out.messages, [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'result' }] },
          { type: 'text', text: 'aside' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'x' },
          { type: 'text', text: 'y' },
        ],
      },
    ]);
  });

  t.test('malformed tool arguments and unsupported options are 400 invalid_request', async (t) => {
    const bad = (args: string) =>
      req({}, [
        user('a'),
        { role: 'assistant', tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: args } }] },
      ]);
    invalidRequest(t, () => toAnthropicRequest(bad('{not json')), /arguments is not valid JSON/);
    invalidRequest(t, () => toAnthropicRequest(bad('[1,2]')), /JSON object/);
    invalidRequest(t, () => toAnthropicRequest(req({ n: 2 })), /n > 1/);
    invalidRequest(
      t,
      () => toAnthropicRequest(req({}, [{ role: 'system', content: 'only system' }])),
      /at least one user/,
    );
  });

  t.test('tools and tool_choice variants, parallel_tool_calls', async (t) => {
    const choice = (extra: Record<string, unknown>) =>
      toAnthropicRequest(req({ tools: [weatherTool], ...extra })).tool_choice;
    t.same(toAnthropicRequest(req({ tools: [weatherTool] })).tools, [
      { name: 'get_weather', input_schema: { type: 'object', properties: { location: { type: 'string' } } } },
    ]);
    t.equal(choice({}), undefined);
    t.same(choice({ tool_choice: 'auto' }), { type: 'auto' });
    t.same(choice({ tool_choice: 'required' }), { type: 'any' });
    t.same(choice({ tool_choice: 'none' }), { type: 'none' });
    t.same(choice({ tool_choice: { type: 'function', function: { name: 'get_weather' } } }), {
      type: 'tool',
      name: 'get_weather',
    });
    t.same(choice({ parallel_tool_calls: false }), { type: 'auto', disable_parallel_tool_use: true });
    t.same(choice({ tool_choice: 'required', parallel_tool_calls: false }), {
      type: 'any',
      disable_parallel_tool_use: true,
    });
    t.same(choice({ tool_choice: 'none', parallel_tool_calls: false }), { type: 'none' });
    t.same(choice({ parallel_tool_calls: true }), undefined);
    // A tool without parameters still gets the object schema Anthropic requires.
    const bare = toAnthropicRequest(req({ tools: [{ type: 'function', function: { name: 'now' } }] })).tools as any[];
    t.same(bare[0].input_schema, { type: 'object', properties: {} });
    // tool_choice without tools is dropped: Anthropic rejects it.
    t.equal(toAnthropicRequest(req({ tool_choice: 'auto' })).tool_choice, undefined);
  });

  t.test('max_tokens: max_completion_tokens, else max_tokens, else the deployment default, else 4096', async (t) => {
    t.equal(
      toAnthropicRequest(req({ max_completion_tokens: 100, max_tokens: 200 }), { defaultMaxTokens: 300 }).max_tokens,
      100,
    );
    t.equal(toAnthropicRequest(req({ max_tokens: 200 }), { defaultMaxTokens: 300 }).max_tokens, 200);
    t.equal(toAnthropicRequest(req(), { defaultMaxTokens: 300 }).max_tokens, 300);
    t.equal(toAnthropicRequest(req()).max_tokens, 4096);
  });

  t.test('stop, temperature clamp, top_p, user', async (t) => {
    t.same(toAnthropicRequest(req({ stop: 'END' })).stop_sequences, ['END']);
    t.same(toAnthropicRequest(req({ stop: ['a', ' ', '\n', 'b'] })).stop_sequences, ['a', 'b']);
    t.equal(toAnthropicRequest(req({ stop: [' '] })).stop_sequences, undefined);
    t.equal(toAnthropicRequest(req({ temperature: 1.7 })).temperature, 1);
    t.equal(toAnthropicRequest(req({ temperature: -0.5 })).temperature, 0);
    t.equal(toAnthropicRequest(req({ temperature: 0.3, top_p: 0.9 })).temperature, 0.3);
    t.equal(toAnthropicRequest(req({ top_p: 0.9 })).top_p, 0.9);
    t.same(toAnthropicRequest(req({ user: 'user-42' })).metadata, { user_id: 'user-42' });
    t.equal(toAnthropicRequest(req({ user: 'a@b.example' })).metadata, undefined);
    const plain = toAnthropicRequest(req({ presence_penalty: 1, seed: 3, logit_bias: {} }));
    t.same(Object.keys(plain).sort(), ['max_tokens', 'messages']);
  });

  t.test('options for Claude on Vertex: no model, anthropic_version in the body', async (t) => {
    const out = toAnthropicRequest(req({ stream: true }), { anthropicVersion: 'vertex-2023-10-16' });
    t.equal(out.model, undefined);
    t.equal(out.anthropic_version, 'vertex-2023-10-16');
    t.equal(out.stream, true);
    t.equal(toAnthropicRequest(req(), { model: 'claude-x' }).model, 'claude-x');
  });

  t.test(
    'response_format: json_schema forces a tool; with client tools or json_object it is a system instruction',
    async (t) => {
      const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
      const forced = toAnthropicRequest(
        req({ response_format: { type: 'json_schema', json_schema: { name: 'city', schema } } }),
      );
      t.same(forced.tools, [
        { name: JSON_RESPONSE_TOOL, description: 'Give the answer as this JSON object.', input_schema: schema },
      ]);
      t.same(forced.tool_choice, { type: 'tool', name: JSON_RESPONSE_TOOL });
      t.equal(forced.system, undefined);
      const withTools = toAnthropicRequest(
        req({ tools: [weatherTool], response_format: { type: 'json_schema', json_schema: { name: 'city', schema } } }),
      );
      t.equal((withTools.tools as any[]).length, 1);
      t.match((withTools.system as any[])[0].text, /JSON Schema: \{"type":"object"/);
      const object = toAnthropicRequest(req({ response_format: { type: 'json_object' } }));
      t.match((object.system as any[])[0].text, /single valid JSON object/);
      t.equal(object.tools, undefined);
    },
  );
});

t.test('response mapping', async (t) => {
  const created = 1_763_900_000;
  t.test('text blocks joined; usage counts cache reads and writes in prompt_tokens', async (t) => {
    const { body, usage } = fromAnthropicResponse(anthropicFixture('text-response.json'), { created });
    t.same(body, {
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      object: 'chat.completion',
      created,
      model: 'claude-sonnet-4-5-20250929',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello! How can I help you today?', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 21 + 1024 + 188,
        completion_tokens: 12,
        total_tokens: 1245,
        prompt_tokens_details: { cached_tokens: 1024, cache_creation_tokens: 188 },
      },
    });
    t.same(usage, body.usage);
  });

  t.test('parallel tool_use blocks → tool_calls with the tool_use ids and JSON-string arguments', async (t) => {
    const { body } = fromAnthropicResponse(anthropicFixture('parallel-tools-response.json'), { created });
    const choice = (body.choices as any[])[0];
    t.equal(choice.finish_reason, 'tool_calls');
    t.equal(choice.message.content, "I'll check the weather in both cities.");
    t.same(choice.message.tool_calls, [
      {
        id: 'toolu_01A09q90qw90lq917835lq9',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"Paris, France","unit":"celsius"}' },
      },
      {
        id: 'toolu_01B7dTnqJ3yRkT4bZ8cXwN2m',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"Tokyo, Japan","unit":"celsius"}' },
      },
    ]);
    t.same(body.usage, {
      prompt_tokens: 412,
      completion_tokens: 121,
      total_tokens: 533,
      prompt_tokens_details: { cached_tokens: 0 },
    });
    const onlyTools = fromAnthropicResponse(
      {
        ...anthropicFixture('parallel-tools-response.json'),
        content: anthropicFixture('parallel-tools-response.json').content.slice(1),
      },
      { created },
    );
    t.equal((onlyTools.body.choices as any[])[0].message.content, null);
  });

  t.test('stop reasons', async (t) => {
    const finish = (name: string) =>
      (fromAnthropicResponse(anthropicFixture(name), { created }).body.choices as any[])[0].finish_reason;
    t.equal(finish('max-tokens-response.json'), 'length');
    t.equal(finish('stop-sequence-response.json'), 'stop');
    t.equal(finish('refusal-response.json'), 'content_filter');
    t.equal(finishReasonOf('end_turn'), 'stop');
    t.equal(finishReasonOf('pause_turn'), 'stop');
    t.equal(finishReasonOf('model_context_window_exceeded'), 'length');
    t.equal(finishReasonOf('something_new'), 'stop');
    t.equal(finishReasonOf(null), 'stop');
  });

  t.test('the forced json_schema tool comes back as content with finish_reason stop', async (t) => {
    const choice = (
      fromAnthropicResponse(anthropicFixture('json-tool-response.json'), { created }).body.choices as any[]
    )[0];
    t.same(JSON.parse(choice.message.content), { city: 'Paris', population: 2102650 });
    t.equal(choice.message.tool_calls, undefined);
    t.equal(choice.finish_reason, 'stop');
  });

  t.test('a message without usage: no usage to book (the gateway estimates it), zeros in the answer', async (t) => {
    const { usage: _usage, ...message } = anthropicFixture('text-response.json');
    const { body, usage } = fromAnthropicResponse(message, { created });
    t.equal(usage, undefined);
    t.same(body.usage, {
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 0,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  t.test('a body that is not a message is an invalid response', async (t) => {
    t.throws(() => fromAnthropicResponse({ hello: 'world' }, { created }), {
      name: 'UpstreamError',
      kind: 'invalid_response',
    });
  });
});

/** Feeds a transcript in awkward pieces (7 bytes, across frame and UTF-8 boundaries). */
async function* pieces(text: string, size = 7): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.slice(i, i + size);
}

async function decode(fixture: string): Promise<{ chunks: ChatChunk[]; error?: unknown }> {
  const chunks: ChatChunk[] = [];
  try {
    for await (const c of decodeAnthropicSse(pieces(anthropicFixtureText(fixture)), { created: 1_763_900_000 }))
      chunks.push(c);
  } catch (error) {
    return { chunks, error };
  }
  return { chunks };
}

const deltas = (chunks: ChatChunk[]) =>
  chunks.filter((c) => (c.choices?.length ?? 0) > 0).map((c) => (c.choices as any[])[0].delta);
const finishOf = (chunks: ChatChunk[]) => chunks.map((c) => (c.choices as any[])[0]?.finish_reason).filter(Boolean);

t.test('stream decoder', async (t) => {
  t.test('text: role first, deltas, finish chunk, then a usage chunk with choices []', async (t) => {
    const { chunks, error } = await decode('text-stream.sse');
    t.equal(error, undefined);
    t.same(deltas(chunks)[0], { role: 'assistant', content: '' });
    t.equal(
      deltas(chunks)
        .map((d) => d.content ?? '')
        .join(''),
      'Hello! How can I help you today?',
    );
    t.same(finishOf(chunks), ['stop']);
    for (const c of chunks) {
      t.equal(c.id, 'msg_01HCzV4p6u4kLmQ9ZxWbT8sE');
      t.equal(c.object, 'chat.completion.chunk');
      t.equal(c.model, 'claude-sonnet-4-5-20250929');
    }
    const last = chunks.at(-1)!;
    t.same(last.choices, []);
    t.same(last.usage, {
      prompt_tokens: 1233,
      completion_tokens: 12,
      total_tokens: 1245,
      prompt_tokens_details: { cached_tokens: 1024, cache_creation_tokens: 188 },
    });
    t.equal(chunks.filter((c) => c.usage).length, 1);
  });

  t.test('parallel tool calls: indices 0 and 1, head delta then argument pieces', async (t) => {
    const { chunks, error } = await decode('parallel-tools-stream.sse');
    t.equal(error, undefined);
    const calls = deltas(chunks).flatMap((d) => d.tool_calls ?? []);
    t.same(
      calls.filter((c: any) => c.id),
      [
        {
          index: 0,
          id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
          type: 'function',
          function: { name: 'get_weather', arguments: '' },
        },
        {
          index: 1,
          id: 'toolu_01Fq8pT7rXmW2bN5vZ3kL9dH',
          type: 'function',
          function: { name: 'get_weather', arguments: '' },
        },
      ],
    );
    const args = (i: number) =>
      calls
        .filter((c: any) => c.index === i)
        .map((c: any) => c.function.arguments)
        .join('');
    t.same(JSON.parse(args(0)), { location: 'Paris, France', unit: 'celsius' });
    t.same(JSON.parse(args(1)), { location: 'Tokyo, Japan', unit: 'celsius' });
    t.ok(
      calls.every((c: any) => c.id || Object.keys(c).join() === 'index,function'),
      'argument deltas carry only index and function',
    );
    t.equal(
      deltas(chunks)
        .map((d) => d.content ?? '')
        .join(''),
      "I'll check the weather in both cities.",
    );
    t.same(finishOf(chunks), ['tool_calls']);
    t.same(chunks.at(-1)!.usage, {
      prompt_tokens: 472,
      completion_tokens: 89,
      total_tokens: 561,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  t.test(
    'interleaved blocks: thinking dropped, a tool without input deltas gets {}, unknown events ignored',
    async (t) => {
      const { chunks, error } = await decode('interleaved-stream.sse');
      t.equal(error, undefined);
      const calls = deltas(chunks).flatMap((d) => d.tool_calls ?? []);
      t.same(calls, [
        {
          index: 0,
          id: 'toolu_01Nw3xQ8mB5vC7zL2kJ4hG6f',
          type: 'function',
          function: { name: 'get_time', arguments: '' },
        },
        { index: 0, function: { arguments: '{}' } },
        {
          index: 1,
          id: 'toolu_01Zp6yT4rE2wQ9uI7oP5aS3d',
          type: 'function',
          function: { name: 'list_files', arguments: '' },
        },
        { index: 1, function: { arguments: '{"path": "/tmp"}' } },
      ]);
      t.equal(
        deltas(chunks)
          .map((d) => d.content ?? '')
          .join(''),
        'Also listing files.',
      );
      t.notOk(JSON.stringify(chunks).includes('thinking'), 'no thinking text reaches the client');
      // message_delta repeats the cumulative input counts; cache writes count in prompt_tokens.
      t.same(chunks.at(-1)!.usage, {
        prompt_tokens: 96 + 2048,
        completion_tokens: 142,
        total_tokens: 2286,
        prompt_tokens_details: { cached_tokens: 0, cache_creation_tokens: 2048 },
      });
    },
  );

  t.test('the forced json_schema tool streams as content', async (t) => {
    const { chunks } = await decode('json-tool-stream.sse');
    t.same(
      JSON.parse(
        deltas(chunks)
          .map((d) => d.content ?? '')
          .join(''),
      ),
      { city: 'Paris', population: 2102650 },
    );
    t.notOk(deltas(chunks).some((d) => d.tool_calls));
    t.same(finishOf(chunks), ['stop']);
  });

  t.test('an in-stream overloaded_error throws after the chunks before it, with status 529', async (t) => {
    const { chunks, error } = await decode('overloaded-stream.sse');
    t.equal(
      deltas(chunks)
        .map((d) => d.content ?? '')
        .join(''),
      'Let me think about',
    );
    t.ok(error instanceof UpstreamError);
    const e = error as UpstreamError;
    t.equal(e.status, 529);
    t.equal(e.message, 'overloaded_error: Overloaded');
    t.same(e.envelope, {
      error: { message: 'Overloaded', type: 'server_error', param: null, code: 'overloaded_error' },
    });
  });

  t.test('a stream that ends before message_stop is a broken connection', async (t) => {
    const text = anthropicFixtureText('text-stream.sse');
    const chunks: ChatChunk[] = [];
    await t.rejects(
      async () => {
        for await (const c of decodeAnthropicSse(pieces(text.slice(0, text.indexOf('event: message_delta'))), {
          created: 1,
        }))
          chunks.push(c);
      },
      { name: 'UpstreamError', kind: 'connect' },
    );
    t.equal(finishOf(chunks).length, 0);
  });

  t.test('data that is not JSON is an invalid response', async (t) => {
    await t.rejects(
      async () => {
        for await (const _ of decodeAnthropicSse(pieces('event: message_start\ndata: {oops\n\n'), { created: 1 }));
      },
      { name: 'UpstreamError', kind: 'invalid_response' },
    );
  });
});

t.test('error mapping', async (t) => {
  t.test('envelopes keep the status and read as OpenAI envelopes', async (t) => {
    const cases: Array<[number, string, string]> = [
      [400, 'invalid_request_error', 'invalid_request_error'],
      [401, 'authentication_error', 'authentication_error'],
      [429, 'rate_limit_error', 'rate_limit_error'],
      [500, 'server_error', 'api_error'],
      [529, 'server_error', 'overloaded_error'],
    ];
    for (const [status, type, code] of cases) {
      const text = anthropicFixtureText(`error-${status}.json`);
      const e = anthropicHttpError(status, text, status === 429 ? 7000 : undefined);
      const message = JSON.parse(text).error.message;
      t.equal(e.kind, 'http');
      t.equal(e.status, status);
      t.equal(e.message, message);
      t.same(e.envelope, { error: { message, type, param: null, code } });
      t.equal(e.retryAfterMs, status === 429 ? 7000 : undefined);
    }
  });

  t.test('a body that is not an envelope becomes the message, without an envelope', async (t) => {
    const e = anthropicHttpError(502, '<html>Bad gateway</html>\n');
    t.equal(e.message, '<html>Bad gateway</html>');
    t.equal(e.envelope, undefined);
    t.equal(anthropicHttpError(503, '').message, 'provider answered 503');
  });

  t.test('in-stream error types map to the status they have unary', async (t) => {
    t.equal(
      anthropicStreamError({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }).status,
      429,
    );
    t.equal(anthropicStreamError({ type: 'error', error: { type: 'api_error', message: 'boom' } }).status, 500);
    t.equal(anthropicStreamError({ type: 'error', error: { type: 'brand_new_error', message: '?' } }).status, 500);
  });
});
