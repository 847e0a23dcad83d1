// Vertex Gemini translation (src/gateway/providers/vertex/): request mapping, response mapping, usage by the rule, stream
// decoding (\r\n\r\n events split across reads), error envelopes, and the OAuth token cache.
import { Readable } from 'node:stream';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import t from 'tap';
import { Agent } from 'undici';
import { GatewayError } from '../../src/platform/errors/gateway-error.ts';
import type { ChatChunk } from '../../src/plugin-api/contract.ts';
import { vertexHttpError, vertexStreamError } from '../../src/gateway/providers/vertex/error-mapping.ts';
import { geminiRequest } from '../../src/gateway/providers/vertex/gemini-request.ts';
import { finishReason, geminiResponse, geminiUsage } from '../../src/gateway/providers/vertex/gemini-response.ts';
import { geminiSchema } from '../../src/gateway/providers/vertex/gemini-schema.ts';
import { geminiStreamDecoder } from '../../src/gateway/providers/vertex/gemini-stream-decoder.ts';
import { accessTokens, readServiceAccount } from '../../src/gateway/providers/vertex/oauth.ts';
import { sseEvents } from '../../src/gateway/providers/vertex/vertex-transport.ts';
import { vertexBaseUrl } from '../../src/gateway/providers/vertex/index.ts';
import type { ProviderServices } from '../../src/gateway/providers/types.ts';
import { UpstreamError } from '../../src/plugin-api/errors.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { createWorkerPool } from '../../src/platform/workers/pool.ts';
import { WORKER_TASK_FILES } from '../../src/runtime/worker-tasks.ts';
import { inlineWorkers } from '../helpers/inline-workers.ts';
import { makeServiceAccount, startFakeVertex, vertexFixture } from '../helpers/fake-vertex.ts';

const ctx = { model: 'gemini-2.5-flash', created: 1_800_000_000 };

t.test('request: roles merged, system and developer to systemInstruction, generation config', async (t) => {
  const req = geminiRequest({
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
      { role: 'user', content: [{ type: 'text', text: 'What is the capital?' }] },
      { role: 'assistant', content: 'Paris.' },
      { role: 'assistant', content: 'Anything else?' },
      { role: 'user', content: 'No.' },
    ],
    max_tokens: 100,
    max_completion_tokens: 50,
    temperature: 0.2,
    top_p: 0.9,
    stop: 'END',
    n: 2,
    seed: 7,
    response_format: { type: 'json_object' },
  });
  t.same(req.systemInstruction, { parts: [{ text: 'Be brief.' }, { text: 'Answer in French.' }] });
  t.same(req.contents, [
    { role: 'user', parts: [{ text: 'Hi' }, { text: 'What is the capital?' }] },
    { role: 'model', parts: [{ text: 'Paris.' }, { text: 'Anything else?' }] },
    { role: 'user', parts: [{ text: 'No.' }] },
  ]);
  t.same(req.generationConfig, {
    maxOutputTokens: 50,
    temperature: 0.2,
    topP: 0.9,
    seed: 7,
    candidateCount: 2,
    stopSequences: ['END'],
    responseMimeType: 'application/json',
  });
  t.notOk('tools' in req);
  t.same(geminiRequest({ messages: [{ role: 'user', content: 'x' }] }, { defaultMaxTokens: 2048 }).generationConfig, {
    maxOutputTokens: 2048,
  });
});

t.test(
  'request: images as inlineData (data URL) and fileData (http/gs URL with MIME from the extension)',
  async (t) => {
    const req = geminiRequest({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.webp?size=2' } },
            { type: 'image_url', image_url: { url: 'gs://bucket/dog.JPG' } },
          ],
        },
      ],
    });
    t.same((req.contents as any)[0].parts, [
      { text: 'Compare' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/cat.webp?size=2' } },
      { fileData: { mimeType: 'image/jpeg', fileUri: 'gs://bucket/dog.JPG' } },
    ]);
    t.throws(
      () =>
        geminiRequest({
          messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }] }],
        }),
      GatewayError,
    );
  },
);

t.test(
  'request: tools, schema keys stripped recursively, tool_choice, tool calls and results by function name',
  async (t) => {
    const parameters = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      properties: {
        city: { type: 'string', description: 'City', examples: ['Paris'], default: 'Paris' },
        // A property may be named like a stripped key: only schema keys go.
        default: { type: ['string', 'null'] },
        when: { $ref: '#/$defs/When' },
        tags: { type: 'array', items: { type: 'string', const: 'x', additionalProperties: false } },
        mode: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
      },
      required: ['city'],
      $defs: {
        When: { type: 'object', properties: { day: { type: 'string', format: 'date' } }, additionalProperties: false },
      },
      strict: true,
    };
    const req = geminiRequest({
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_b', content: '12:00' },
        { role: 'tool', tool_call_id: 'call_a', content: '{"temp":21}' },
      ],
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters, strict: true } },
        { type: 'function', function: { name: 'get_time' } },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    t.same(req.tools, [
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Weather',
            parameters: {
              type: 'object',
              properties: {
                city: { type: 'string', description: 'City' },
                default: { type: 'string', nullable: true },
                when: { type: 'object', properties: { day: { type: 'string', format: 'date' } } },
                tags: { type: 'array', items: { type: 'string', enum: ['x'] } },
                mode: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
              },
              required: ['city'],
            },
          },
          { name: 'get_time' },
        ],
      },
    ]);
    t.same(req.toolConfig, { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
    t.same(req.contents, [
      { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
          { functionCall: { name: 'get_time', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_time', response: { output: '12:00' } } },
          { functionResponse: { name: 'get_weather', response: { temp: 21 } } },
        ],
      },
    ]);
    for (const [choice, mode] of [
      ['auto', 'AUTO'],
      ['required', 'ANY'],
      ['none', 'NONE'],
    ]) {
      t.same(geminiRequest({ messages: [{ role: 'user', content: 'x' }], tool_choice: choice }).toolConfig, {
        functionCallingConfig: { mode },
      });
    }
    t.throws(
      () =>
        geminiRequest({
          messages: [
            { role: 'user', content: 'x' },
            { role: 'tool', tool_call_id: 'nope', content: 'r' },
          ],
        }),
      { name: 'GatewayError', code: 'invalid_request' },
      'a tool result for no earlier call is a 400',
    );
    t.throws(
      () =>
        geminiRequest({
          messages: [{ role: 'assistant', tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{oops' } }] }],
        }),
      { code: 'invalid_request' },
    );
    t.same(
      geminiRequest({
        messages: [{ role: 'user', content: 'x' }],
        response_format: { type: 'json_schema', json_schema: { name: 's', schema: parameters.$defs.When } },
      }).generationConfig,
      {
        responseMimeType: 'application/json',
        responseSchema: { type: 'object', properties: { day: { type: 'string', format: 'date' } } },
      },
    );
    t.same(
      geminiSchema({
        $ref: '#/$defs/Node',
        $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } } },
      }).type,
      'object',
      'recursive refs end',
    );
  },
);

t.test('response: text joined, usage by the rule with cached and thoughts', async (t) => {
  const { body, usage } = geminiResponse(vertexFixture('generate-text.json'), ctx);
  t.match(body, {
    id: 'chatcmpl-gD8jab2mFv6d1dkP7qKx4Ak',
    object: 'chat.completion',
    created: 1_800_000_000,
    model: 'gemini-2.5-flash',
    choices: [
      { index: 0, message: { role: 'assistant', content: 'Paris is the capital of France.' }, finish_reason: 'stop' },
    ],
  });
  // promptTokenCount 120 includes 100 cached; candidates 8 exclude 50 thoughts; Gemini's total 178.
  t.same(usage, {
    prompt_tokens: 120,
    completion_tokens: 58,
    total_tokens: 178,
    prompt_tokens_details: { cached_tokens: 100 },
    completion_tokens_details: { reasoning_tokens: 50 },
  });
  t.same(body.usage, usage);
  t.same(
    geminiUsage({ promptTokenCount: 10, toolUsePromptTokenCount: 4, candidatesTokenCount: 3, totalTokenCount: 17 }),
    {
      prompt_tokens: 14,
      completion_tokens: 3,
      total_tokens: 17,
      prompt_tokens_details: { cached_tokens: 0 },
    },
  );
  t.equal(geminiUsage({ trafficType: 'ON_DEMAND' }), undefined, 'metadata without counts is no usage');
});

t.test('response: function calls become tool calls with minted ids and finish_reason tool_calls', async (t) => {
  const { body } = geminiResponse(vertexFixture('generate-tools.json'), ctx);
  const message = (body.choices as any)[0].message;
  t.equal(message.content, null);
  t.equal((body.choices as any)[0].finish_reason, 'tool_calls');
  t.equal(message.tool_calls.length, 2);
  t.match(message.tool_calls[0], { id: /^call_[A-Za-z0-9]{24}$/, type: 'function', function: { name: 'get_weather' } });
  t.same(JSON.parse(message.tool_calls[0].function.arguments), { city: 'Paris', unit: 'celsius' });
  t.not(message.tool_calls[0].id, message.tool_calls[1].id, 'ids are distinct');
  t.same(JSON.parse(message.tool_calls[1].function.arguments), { tz: 'Europe/Paris' });
});

t.test('response: thought parts left out, one choice per candidate', async (t) => {
  const { body } = geminiResponse(
    {
      candidates: [
        {
          index: 0,
          content: { role: 'model', parts: [{ text: 'Let me think…', thought: true }, { text: 'Four.' }] },
          finishReason: 'STOP',
        },
        { index: 1, content: { role: 'model', parts: [{ text: '4' }] }, finishReason: 'MAX_TOKENS' },
      ],
    },
    ctx,
  );
  t.match(body.choices, [
    { index: 0, message: { content: 'Four.' }, finish_reason: 'stop' },
    { index: 1, message: { content: '4' }, finish_reason: 'length' },
  ]);
  t.match(body.id, /^chatcmpl-[A-Za-z0-9]{24}$/, 'an id is minted when Vertex sends no responseId');
  t.equal(body.model, 'gemini-2.5-flash');
});

t.test('response: finish reasons and a blocked prompt', async (t) => {
  const table: [string, boolean, string][] = [
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool_calls'],
    ['MAX_TOKENS', false, 'length'],
    ['MAX_TOKENS', true, 'length'],
    ['SAFETY', false, 'content_filter'],
    ['RECITATION', false, 'content_filter'],
    ['BLOCKLIST', false, 'content_filter'],
    ['PROHIBITED_CONTENT', false, 'content_filter'],
    ['SPII', false, 'content_filter'],
    ['IMAGE_SAFETY', false, 'content_filter'],
    ['OTHER', false, 'stop'],
    ['MALFORMED_FUNCTION_CALL', false, 'stop'],
    ['FINISH_REASON_UNSPECIFIED', false, 'stop'],
    ['SOMETHING_NEW', false, 'stop'],
  ];
  for (const [reason, tools, expected] of table)
    t.equal(finishReason(reason, tools), expected, `${reason} tools=${tools}`);
  t.equal(
    (geminiResponse(vertexFixture('generate-max-tokens.json'), ctx).body.choices as any)[0].finish_reason,
    'length',
  );
  t.match(geminiResponse(vertexFixture('generate-safety.json'), ctx).body.choices, [
    { message: { content: '' }, finish_reason: 'content_filter' },
  ]);
  const blocked = geminiResponse(vertexFixture('prompt-blocked.json'), ctx);
  t.same((blocked.body.choices as any)[0], {
    index: 0,
    message: { role: 'assistant', content: '', refusal: null },
    logprobs: null,
    finish_reason: 'content_filter',
  });
  t.same(blocked.usage, {
    prompt_tokens: 14,
    completion_tokens: 0,
    total_tokens: 14,
    prompt_tokens_details: { cached_tokens: 0 },
  });
});

/** Feeds `events` as SSE with `sep`, cutting every frame across reads, through sseEvents and the decoder. */
async function decode(events: unknown[], sep = '\r\n\r\n'): Promise<ChatChunk[]> {
  const wire = events.map((e) => `data: ${JSON.stringify(e)}${sep}`).join('');
  const pieces: Buffer[] = [];
  for (let i = 0; i < wire.length; i += 7) pieces.push(Buffer.from(wire.slice(i, i + 7)));
  const decoder = geminiStreamDecoder(ctx);
  const out: ChatChunk[] = [];
  for await (const e of sseEvents(Readable.from(pieces) as any)) out.push(...decoder.push(JSON.parse(e.data)));
  out.push(...decoder.end());
  return out;
}

t.test('stream: \\r\\n\\r\\n events split across reads → role, text deltas, finish, usage chunk', async (t) => {
  for (const sep of ['\r\n\r\n', '\n\n']) {
    const chunks = await decode(vertexFixture('stream-text.json'), sep);
    t.same(
      chunks[0].choices,
      [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      sep,
    );
    t.equal(chunks.map((c: any) => c.choices[0]?.delta.content ?? '').join(''), 'Hello from Gemini.');
    t.ok(chunks.every((c) => c.id === 'chatcmpl-lD8jag7rKz1i6ioS2vP29Fp' && c.object === 'chat.completion.chunk'));
    t.same(chunks.at(-2)!.choices, [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]);
    t.same(chunks.at(-1)!.choices, []);
    t.same(chunks.at(-1)!.usage, {
      prompt_tokens: 40,
      completion_tokens: 36,
      total_tokens: 76,
      prompt_tokens_details: { cached_tokens: 30 },
      completion_tokens_details: { reasoning_tokens: 30 },
    });
  }
});

t.test('stream: whole function calls across events get indices 0..n-1 and finish tool_calls', async (t) => {
  const chunks = await decode(vertexFixture('stream-tools.json'));
  const calls = chunks.flatMap((c: any) => c.choices[0]?.delta.tool_calls ?? []);
  t.same(
    calls.map((c: any) => c.index),
    [0, 1, 2],
  );
  t.same(
    calls.map((c: any) => c.function.name),
    ['get_weather', 'get_weather', 'get_time'],
  );
  t.same(
    calls.map((c: any) => JSON.parse(c.function.arguments)),
    [{ city: 'Paris' }, { city: 'Rome' }, { tz: 'Europe/Rome' }],
  );
  t.ok(calls.every((c: any) => /^call_/.test(c.id) && c.type === 'function'));
  t.equal(new Set(calls.map((c: any) => c.id)).size, 3);
  t.equal((chunks.at(-2)!.choices as any)[0].finish_reason, 'tool_calls');
});

t.test('stream: usage from the last event that has counts', async (t) => {
  const [a, b, c] = vertexFixture('stream-text.json');
  const chunks = await decode([
    a,
    { ...c, candidates: [{ ...c.candidates[0], finishReason: undefined }] },
    { ...b, candidates: [{ ...b.candidates[0], finishReason: 'STOP' }] },
  ]);
  t.match(chunks.at(-1)!.usage, { prompt_tokens: 40, completion_tokens: 36, total_tokens: 76 });
});

t.test('stream: a blocked prompt, an in-stream error, and an early end', async (t) => {
  const blocked = await decode([vertexFixture('prompt-blocked.json')]);
  t.same(
    blocked.map((c: any) => c.choices[0]?.finish_reason ?? (c.usage ? 'usage' : null)),
    [null, 'content_filter', 'usage'],
  );
  const decoder = geminiStreamDecoder(ctx);
  decoder.push(vertexFixture('stream-text.json')[0]);
  t.throws(() => decoder.push(vertexFixture('error-503.json')), {
    name: 'UpstreamError',
    status: 503,
    message: 'The service is currently unavailable.',
  });
  t.throws(() => decoder.end(), { name: 'UpstreamError', kind: 'connect' }, 'no finish reason yet');
});

t.test('errors: Google envelopes keep the status and become OpenAI-shaped', async (t) => {
  const err = vertexHttpError(429, { 'retry-after': '2' }, JSON.stringify(vertexFixture('error-429.json')), 0);
  t.ok(err instanceof UpstreamError);
  t.equal(err.status, 429);
  t.equal(err.retryAfterMs, 2000);
  t.same(err.envelope, {
    error: {
      message: vertexFixture('error-429.json').error.message,
      type: 'rate_limit_error',
      param: null,
      code: 'resource_exhausted',
    },
  });
  t.match(
    vertexHttpError(400, {}, JSON.stringify([vertexFixture('error-400.json')]), 0).envelope,
    { error: { type: 'invalid_request_error', code: 'invalid_argument' } },
    'array-wrapped',
  );
  t.match(vertexHttpError(502, {}, '<html>bad gateway</html>', 0), {
    status: 502,
    envelope: { error: { code: 'upstream_error', message: '<html>bad gateway</html>' } },
  });
  t.match(vertexStreamError({ error: { message: 'overloaded', status: 'UNAVAILABLE' } }), { status: 503 });
  t.equal(vertexStreamError({ candidates: [] }), undefined);
});

t.test(
  'oauth: credentials file relative to baseDir; token cached, shared, renewed 5 minutes before expiry',
  async (t) => {
    const fake = await startFakeVertex();
    t.teardown(() => fake.close());
    const dir = mkdtempSync(join(tmpdir(), 'svc-vertex-'));
    writeFileSync(join(dir, 'sa.json'), fake.account.json);
    const account = readServiceAccount({ project: 'p', location: 'us-central1', credentials_file: 'sa.json' }, dir);
    t.equal(account.client_email, fake.account.clientEmail);
    t.throws(() => readServiceAccount({ project: 'p', location: 'l' }, dir), /both empty/);
    t.throws(
      () => readServiceAccount({ project: 'p', location: 'l', credentials_json: '{"client_email":"x"}' }, dir),
      /private_key/,
    );

    let now = Date.now();
    const dispatcher = new Agent();
    t.teardown(() => dispatcher.close());
    const services = {
      dispatcher,
      now: () => now,
      workers: inlineWorkers,
      baseDir: dir,
      log: silentLogger,
    } as unknown as ProviderServices;
    fake.now = () => now;
    const tokens = accessTokens(services);
    const [a, b, c] = await Promise.all([
      tokens.token(account, fake.tokenUrl),
      tokens.token(account, fake.tokenUrl),
      tokens.token(account, fake.tokenUrl),
    ]);
    t.equal(fake.tokenFetches, 1, 'concurrent callers share one fetch');
    t.equal(a, b);
    t.equal(b, c);
    // The fake grants 3599 s: the token is renewed 5 minutes before that.
    now += 3599_000 - 5 * 60_000 - 1;
    t.equal(await tokens.token(account, fake.tokenUrl), a, 'still cached just before the renewal point');
    t.equal(fake.tokenFetches, 1);
    now += 1;
    const renewed = await tokens.token(account, fake.tokenUrl);
    t.not(renewed, a, 'renewed at the renewal point');
    t.equal(fake.tokenFetches, 2);
    tokens.invalidate(account, fake.tokenUrl, a);
    t.equal(await tokens.token(account, fake.tokenUrl), renewed, 'invalidating an older token keeps the newer one');
    tokens.invalidate(account, fake.tokenUrl, renewed);
    t.not(await tokens.token(account, fake.tokenUrl), renewed, 'an invalidated token is fetched again');
    t.equal(fake.tokenFetches, 3);
    t.same(fake.tokenRejections, [], 'every assertion verified');

    const bad = { ...account, private_key: JSON.parse(makeServiceAccount().json).private_key };
    await t.rejects(
      accessTokens(services).token(bad, fake.tokenUrl),
      { name: 'UpstreamError', status: 502, message: /token request failed \(400\)/ },
      'a JWT signed by another key is refused',
    );
  },
);

t.test('signJwt runs in the worker pool: RS256 with kid, verifiable with the public key', async (t) => {
  const pool = createWorkerPool(WORKER_TASK_FILES, { maxThreads: 1 });
  t.teardown(() => pool.close());
  const account = makeServiceAccount();
  const { private_key: privateKeyPem, private_key_id: keyId } = JSON.parse(account.json);
  const claims = {
    iss: account.clientEmail,
    sub: account.clientEmail,
    aud: 'https://oauth2.googleapis.com/token',
    scope: 'x',
    iat: 1_800_000_000,
    exp: 1_800_003_600,
  };
  const jwt = await pool.run('signJwt', { privateKeyPem, keyId, claims });
  t.same(decodeProtectedHeader(jwt), { alg: 'RS256', typ: 'JWT', kid: keyId });
  const { payload } = await jwtVerify(jwt, account.publicKey, { currentDate: new Date(1_800_000_100_000) });
  t.same(payload, claims);
});

t.test('default endpoint hosts: regional, and no prefix for global', async (t) => {
  t.equal(vertexBaseUrl('us-central1'), 'https://us-central1-aiplatform.googleapis.com');
  t.equal(vertexBaseUrl('global'), 'https://aiplatform.googleapis.com');
});
