// Bedrock translation without a network: request mapping, response mapping, event-stream decoding (frames
// split anywhere, CRCs, exceptions) and chunk translation, error mapping and its routing verdict.
import { readFileSync } from 'node:fs';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import t from 'tap';
import { judgeFailure } from '../../plugins/router/outcome.ts';
import type { DeploymentConfig } from '../../src/platform/config/types.ts';
import { GatewayError } from '../../src/platform/errors/gateway-error.ts';
import type { ChatChunk } from '../../src/plugin-api/contract.ts';
import { httpError } from '../../src/gateway/providers/bedrock/error-mapping.ts';
import { bedrockProvider } from '../../src/gateway/providers/bedrock/index.ts';
import { eventStreamEvents } from '../../src/gateway/providers/bedrock/event-stream-decoder.ts';
import { converseRequest } from '../../src/gateway/providers/bedrock/request-translation.ts';
import {
  bedrockUsage,
  chatCompletion,
  finishReason,
} from '../../src/gateway/providers/bedrock/response-translation.ts';
import { bedrockAuth } from '../../src/gateway/providers/bedrock/signing.ts';
import { converseStreamChunks } from '../../src/gateway/providers/bedrock/stream-translation.ts';
import { UpstreamError } from '../../src/plugin-api/errors.ts';
import { encodeFrame, textStream, type StreamFrameSpec } from '../helpers/fake-bedrock.ts';

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/bedrock/${name}`, import.meta.url), 'utf8'));
const deployment = (extra: Partial<DeploymentConfig> = {}): DeploymentConfig => ({
  id: 'bedrock-1',
  provider: 'bedrock',
  model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
  weight: 1,
  aws: { region: 'us-east-1', access_key_id: 'AKID', secret_access_key: 'secret' },
  ...extra,
});
const meta = { id: 'chatcmpl-test', model: 'anthropic.claude-3-5-haiku-20241022-v1:0', created: 1_700_000_000 };

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

t.test(
  'request: system/developer, merged user turn with image, tool round trip, toolConfig, inferenceConfig',
  async (t) => {
    t.same(
      converseRequest(fixture('request-tool-round-trip.openai.json'), deployment()),
      fixture('request-tool-round-trip.converse.json'),
    );
  },
);

t.test('request: maxTokens from max_completion_tokens, max_tokens, the deployment default, else 4096', async (t) => {
  const messages = [{ role: 'user', content: 'hi' }];
  const max = (body: Record<string, unknown>, d = deployment()) =>
    (converseRequest({ messages, ...body }, d).inferenceConfig as any).maxTokens;
  t.equal(max({ max_completion_tokens: 50, max_tokens: 70 }), 50);
  t.equal(max({ max_tokens: 70 }), 70);
  t.equal(max({}, deployment({ default_max_tokens: 1234 })), 1234);
  t.equal(max({}), 4096);
  t.same(converseRequest({ messages, stop: 'STOP' }, deployment()).inferenceConfig, {
    maxTokens: 4096,
    stopSequences: ['STOP'],
  });
});

t.test('request: tool_choice required → any, named → tool, none → no toolConfig', async (t) => {
  const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }];
  const messages = [{ role: 'user', content: 'hi' }];
  t.same((converseRequest({ messages, tools, tool_choice: 'required' }, deployment()).toolConfig as any).toolChoice, {
    any: {},
  });
  t.same(
    (
      converseRequest({ messages, tools, tool_choice: { type: 'function', function: { name: 'f' } } }, deployment())
        .toolConfig as any
    ).toolChoice,
    {
      tool: { name: 'f' },
    },
  );
  t.notOk(
    'toolChoice' in (converseRequest({ messages, tools }, deployment()).toolConfig as any),
    'no tool_choice: Bedrock decides (auto)',
  );
  t.notOk('toolConfig' in converseRequest({ messages, tools, tool_choice: 'none' }, deployment()));
  // Converse refuses tool blocks in the history without a toolConfig: with none, the specs stay, no choice forced.
  const history = [
    ...messages,
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '' } }],
    },
    { role: 'tool', tool_call_id: 'a', content: 'ok' },
  ];
  const withHistory = converseRequest({ messages: history, tools, tool_choice: 'none' }, deployment());
  t.same(withHistory.toolConfig, {
    tools: [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object', properties: {} } } } }],
  });
  t.same((withHistory.messages as any)[1].content[0].toolUse.input, {}, 'empty arguments are {}');
});

t.test('request: http image URLs, bad formats and malformed tool arguments are 400 invalid_request', async (t) => {
  const image = (url: string) => ({
    messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }],
  });
  const http = thrown(() => converseRequest(image('https://example.com/cat.png'), deployment())) as GatewayError;
  t.ok(http instanceof GatewayError);
  t.equal(http.code, 'invalid_request');
  t.equal(http.status, 400);
  t.match(http.message, /cannot fetch image URLs.*data: URL/);
  t.same(http.details, { param: 'messages[0].content[0].image_url.url' });
  t.match(
    (thrown(() => converseRequest(image('data:image/tiff;base64,AAAA'), deployment())) as Error).message,
    /png, jpeg, gif and webp/,
  );
  const jpeg = converseRequest(image('data:image/jpeg;base64,/9j/AA=='), deployment());
  t.same((jpeg.messages as any)[0].content, [{ image: { format: 'jpeg', source: { bytes: '/9j/AA==' } } }]);
  const badArgs = {
    messages: [
      { role: 'assistant', tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: '{nope' } }] },
    ],
  };
  t.match((thrown(() => converseRequest(badArgs, deployment())) as GatewayError).code, 'invalid_request');
});

t.test(
  'response: text joined, parallel toolUse → tool_calls, stop reason, usage by the rule with cache read/write',
  async (t) => {
    const { body, usage } = chatCompletion(fixture('response-parallel-tools.converse.json'), meta);
    t.same(body, {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: meta.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Checking both cities.',
            refusal: null,
            tool_calls: [
              {
                id: 'tooluse_paris',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              },
              { id: 'tooluse_rome', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
            ],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage,
    });
    // inputTokens (100) excludes cache reads (1000) and writes (200): prompt = 1300, cached = 1000, total = sum.
    t.same(usage, {
      prompt_tokens: 1300,
      completion_tokens: 40,
      total_tokens: 1340,
      prompt_tokens_details: { cached_tokens: 1000, cache_creation_tokens: 200 },
    });
    const guard = chatCompletion(fixture('response-guardrail.converse.json'), meta).body as any;
    t.equal(guard.choices[0].finish_reason, 'content_filter');
    t.same(guard.usage, {
      prompt_tokens: 20,
      completion_tokens: 9,
      total_tokens: 29,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  },
);

t.test('response: every documented stopReason has a finish_reason', async (t) => {
  t.same(
    [
      'end_turn',
      'stop_sequence',
      'max_tokens',
      'tool_use',
      'guardrail_intervened',
      'content_filtered',
      'model_context_window_exceeded',
      'malformed_model_output',
      'malformed_tool_use',
      'something_new',
    ].map(finishReason),
    ['stop', 'stop', 'length', 'tool_calls', 'content_filter', 'content_filter', 'length', 'stop', 'stop', 'stop'],
  );
  // No counts is no usage, not zero tokens: the gateway estimates it (docs/api.md "Provider usage").
  t.equal(bedrockUsage(undefined), undefined);
  t.equal(bedrockUsage({}), undefined);
  // outputTokens is a count Bedrock always sends: left out, it is carried as null for the router's check to refuse.
  t.same(bedrockUsage({ inputTokens: 3 }), {
    prompt_tokens: 3,
    completion_tokens: null,
    prompt_tokens_details: { cached_tokens: 0 },
  });
  t.ok(
    thrown(() => chatCompletion({ stopReason: 'end_turn' }, meta)) instanceof UpstreamError,
    'no output → invalid_response',
  );
});

/** The frames as one byte stream, cut into pieces of `size` bytes (so frames split anywhere). */
async function* bytes(
  frames: StreamFrameSpec[],
  size: number,
  corrupt?: (all: Buffer) => void,
): AsyncGenerator<Uint8Array> {
  const all = Buffer.concat(frames.map((f) => Buffer.from(encodeFrame(f))));
  corrupt?.(all);
  for (let i = 0; i < all.length; i += size) yield all.subarray(i, i + size);
}

async function collect(
  frames: StreamFrameSpec[],
  size = 7,
  corrupt?: (all: Buffer) => void,
): Promise<{ chunks: ChatChunk[]; error?: unknown }> {
  const chunks: ChatChunk[] = [];
  try {
    for await (const c of converseStreamChunks(eventStreamEvents(bytes(frames, size, corrupt)), meta)) chunks.push(c);
  } catch (error) {
    return { chunks, error };
  }
  return { chunks };
}

const deltas = (chunks: ChatChunk[]) => chunks.map((c) => (c.choices as any[])[0]?.delta);

t.test('stream: parallel tool use, indices 0..n-1, finish chunk then the usage chunk from metadata', async (t) => {
  for (const size of [1, 7, 4096]) {
    const { chunks, error } = await collect(fixture('stream-parallel-tools.events.json'), size);
    t.error(error);
    t.same(
      deltas(chunks),
      [
        { role: 'assistant', content: '' },
        { content: 'Checking ' },
        { content: 'both cities.' },
        {
          tool_calls: [
            { index: 0, id: 'tooluse_paris', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        },
        { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
        { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
        {
          tool_calls: [
            { index: 1, id: 'tooluse_rome', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        },
        { tool_calls: [{ index: 1, function: { arguments: '{"city":"Rome"}' } }] },
        {},
        undefined,
      ],
      `pieces of ${size} bytes`,
    );
    const finish = chunks.at(-2)!;
    t.equal((finish.choices as any[])[0].finish_reason, 'tool_calls');
    t.equal(finish.usage, null);
    const last = chunks.at(-1)!;
    t.same(last.choices, []);
    t.same(last.usage, {
      prompt_tokens: 1300,
      completion_tokens: 40,
      total_tokens: 1340,
      prompt_tokens_details: { cached_tokens: 1000, cache_creation_tokens: 200 },
    });
    for (const c of chunks) {
      t.equal(c.object, 'chat.completion.chunk');
      t.equal(c.id, 'chatcmpl-test');
    }
  }
});

t.test(
  'stream: a corrupted message CRC or prelude CRC ends the stream with a throw after what came before',
  async (t) => {
    const frames = textStream(['a', 'b', 'c']);
    const second = Buffer.from(encodeFrame(frames[0])).length + Buffer.from(encodeFrame(frames[1])).length;
    const bad = await collect(frames, 5, (all) => {
      all[second - 1] ^= 0xff;
    });
    t.same(deltas(bad.chunks), [{ role: 'assistant', content: '' }], 'the chunk before the bad frame arrived');
    t.ok(bad.error instanceof UpstreamError);
    t.equal((bad.error as UpstreamError).kind, 'invalid_response');
    t.match((bad.error as Error).message, /corrupt.*checksum/);
    const prelude = await collect(frames, 5, (all) => {
      all[8] ^= 0xff;
    });
    t.same(prelude.chunks, []);
    t.match((prelude.error as Error).message, /prelude CRC32/);
  },
);

t.test('stream: a truncated frame or a stream without messageStop is an error', async (t) => {
  const frames = textStream(['a']);
  const truncated = (async function* () {
    const all = Buffer.concat(frames.map((f) => Buffer.from(encodeFrame(f))));
    yield all.subarray(0, all.length - 3);
  })();
  await t.rejects(async () => {
    for await (const _ of converseStreamChunks(eventStreamEvents(truncated), meta));
  }, /inside an event-stream frame/);
  const { error } = await collect(frames.slice(0, 2));
  t.match((error as Error).message, /before messageStop/);
});

t.test('stream: exception frames throw the mapped UpstreamError (status, AWS name as code)', async (t) => {
  const mid = await collect(fixture('stream-exception-mid.events.json'));
  t.same(deltas(mid.chunks), [{ role: 'assistant', content: '' }, { content: 'Partial' }]);
  const err = mid.error as UpstreamError;
  t.equal(err.kind, 'http');
  t.equal(err.status, 424);
  t.same(err.envelope, {
    error: {
      message: 'The model stream failed: upstream model error.',
      type: 'invalid_request_error',
      param: null,
      code: 'ModelStreamErrorException',
    },
  });
  const first = await collect(fixture('stream-throttled-first.events.json'));
  t.same(first.chunks, []);
  t.equal((first.error as UpstreamError).status, 429);
  t.equal(
    judgeFailure(first.error as UpstreamError).outcome,
    'retryable',
    'a throttled stream that sent nothing may be retried',
  );
});

t.test(
  'errors: x-amzn-errortype and {message} → UpstreamError with status kept; throttling classes are retryable',
  async (t) => {
    const err = httpError(
      400,
      { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' },
      '{"message":"Malformed input request"}',
      0,
    );
    t.equal(err.status, 400);
    t.equal(err.message, 'Malformed input request');
    t.same(err.envelope, {
      error: {
        message: 'Malformed input request',
        type: 'invalid_request_error',
        param: null,
        code: 'ValidationException',
      },
    });
    t.same(judgeFailure(err), { outcome: 'failed', tryElsewhere: false, healthSignal: false });
    const cases: Array<[number, string]> = [
      [429, 'ThrottlingException'],
      [429, 'ModelNotReadyException'],
      [503, 'ServiceUnavailableException'],
      [500, 'InternalServerException'],
    ];
    for (const [status, type] of cases) {
      const e = httpError(status, { 'x-amzn-errortype': type, 'retry-after': '2' }, '{"message":"slow down"}', 0);
      t.equal(judgeFailure(e).outcome, 'retryable', type);
      t.equal((e.envelope as any).error.code, type);
      t.equal(e.retryAfterMs, 2000);
    }
    const plain = httpError(502, {}, 'Bad Gateway', 0);
    t.equal(plain.message, 'Bad Gateway');
    t.equal((plain.envelope as any).error.code, 'upstream_error');
  },
);

t.test(
  'auth: API key first, then yaml keys (with their own session token), then the captured environment',
  async (t) => {
    const env = { AWS_ACCESS_KEY_ID: 'ENVKEY', AWS_SECRET_ACCESS_KEY: 'envsecret', AWS_SESSION_TOKEN: 'envtoken' };
    t.same(bedrockAuth(deployment({ api_key: 'bedrock-api-key' }), env), { kind: 'bearer', apiKey: 'bedrock-api-key' });
    t.same(bedrockAuth(deployment(), env), {
      kind: 'sigv4',
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret', sessionToken: undefined },
    });
    t.same(bedrockAuth(deployment({ aws: { region: 'eu-west-1' } }), env), {
      kind: 'sigv4',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'ENVKEY', secretAccessKey: 'envsecret', sessionToken: 'envtoken' },
    });
    t.equal(bedrockAuth(deployment({ aws: { region: 'eu-west-1' } }), {}), undefined);
    t.equal(
      bedrockAuth(deployment({ aws: { region: 'eu-west-1', access_key_id: 'AKID' } }), env),
      undefined,
      'half a key pair is no key',
    );
  },
);

t.test('stream: a `:message-type: error` frame throws with its error code and message', async (t) => {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  const str = (value: string) => ({ type: 'string' as const, value });
  const frame = codec.encode({
    headers: {
      ':message-type': str('error'),
      ':error-code': str('internalServerException'),
      ':error-message': str('Something broke'),
    },
    body: new Uint8Array(0),
  });
  async function* only() {
    yield frame;
  }
  let err: UpstreamError | undefined;
  try {
    for await (const _ of eventStreamEvents(only()));
  } catch (e) {
    err = e as UpstreamError;
  }
  t.ok(err instanceof UpstreamError);
  if (!err) return;
  t.equal(err.status, 500);
  t.equal(err.message, 'Something broke');
  t.equal((err.envelope as any).error.code, 'InternalServerException');
});

t.test('adapter: a deployment without credentials or api_key is unavailable; no embeddings', async (t) => {
  const services = {
    dispatcher: undefined as never,
    now: () => 0,
    workers: undefined as never,
    baseDir: '.',
    log: undefined as never,
  };
  const adapter = bedrockProvider(services, {});
  t.equal(adapter.supportsEmbeddings, false);
  t.match(adapter.unavailableReason(deployment({ aws: { region: 'us-east-1' } })), /no AWS credentials/);
  t.equal(adapter.unavailableReason(deployment()), undefined);
  t.equal(adapter.unavailableReason(deployment({ aws: { region: 'us-east-1' }, api_key: 'k' })), undefined);
  t.equal(
    bedrockProvider(services, { AWS_ACCESS_KEY_ID: 'A', AWS_SECRET_ACCESS_KEY: 'S' }).unavailableReason(
      deployment({ aws: { region: 'us-east-1' } }),
    ),
    undefined,
  );
});
