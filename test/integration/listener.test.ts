// The gateway listener's framing checks (docs/api.md "Request rules", "Errors", "Limits"; docs/decisions.md "Check
// order"), the error envelope, the operational endpoints on both ports and /metrics on the admin port only.
import t, { type Test } from 'tap';
import { GATEWAY_ERROR_STATUS } from '../../src/platform/errors/codes.ts';
import { nodeRequest as raw } from '../helpers/node-request.ts';
import { pluginModule } from '../helpers/plugin-module.ts';
import { baseConfig, chatBody, postJson, startTestService, TEST_KEY } from '../helpers/service.ts';

const DEFAULT_MAX_BODY = 4_718_592;
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A valid chat body of exactly `size` bytes: the JSON is padded with a long string field. */
function chatBodyOfSize(size: number): Buffer {
  const head = JSON.stringify({ ...chatBody(), pad: '' });
  const text = `${head.slice(0, -2)}${'x'.repeat(size - Buffer.byteLength(head))}"}`;
  const buf = Buffer.from(text);
  if (buf.length !== size) throw new Error(`padding went wrong: ${buf.length} != ${size}`);
  JSON.parse(text);
  return buf;
}

/** The same, padded with trailing whitespace instead (still valid JSON). */
function chatBodyPaddedWithSpaces(size: number): Buffer {
  const head = JSON.stringify(chatBody());
  return Buffer.from(head + ' '.repeat(size - Buffer.byteLength(head)));
}

function splitInto(buf: Buffer, pieceSize: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += pieceSize) out.push(buf.subarray(i, i + pieceSize));
  return out;
}

const json = { 'content-type': 'application/json' };
const withKey = { ...json, authorization: `Bearer ${TEST_KEY}` };

function isEnvelope(t: Test, body: any, code: string | null, type: string) {
  t.same(Object.keys(body ?? {}), ['error'], 'only an error object');
  t.same(Object.keys(body.error).sort(), ['code', 'message', 'param', 'type']);
  t.equal(body.error.code, code);
  t.equal(body.error.type, type);
  t.equal(body.error.param, null);
  t.type(body.error.message, 'string');
  t.ok(body.error.message.length > 0, 'message is not empty');
}

t.test('only the three routes exist: everything else is 404 unknown_route in the OpenAI envelope', async (t) => {
  const { gatewayUrl } = await startTestService(t, baseConfig());
  const cases: [string, string][] = [
    ['GET', '/'],
    ['GET', '/v1'],
    ['POST', '/v1/completions'],
    ['GET', '/v1/chat/completions'],
    ['PUT', '/v1/chat/completions'],
    ['DELETE', '/v1/embeddings'],
    ['GET', '/v1/embeddings'],
    ['POST', '/v1/models'],
    ['POST', '/v1/chat/completions/'],
    ['POST', '/v1/embeddings/'],
    ['GET', '/v1/models/'],
    ['GET', '/v1/models/demo'],
    ['POST', '/V1/chat/completions'],
    ['POST', '//v1/chat/completions'],
    ['POST', '/chat/completions'],
    ['GET', '/metrics'],
    ['POST', '/health'],
    ['GET', '/healthz'],
  ];
  for (const [method, path] of cases) {
    const res = await raw(gatewayUrl, method, path, {
      headers: withKey,
      body: method === 'GET' || method === 'DELETE' ? undefined : JSON.stringify(chatBody()),
    });
    t.equal(res.status, 404, `${method} ${path}`);
    isEnvelope(t, res.json, 'unknown_route', 'invalid_request_error');
    t.match(res.json.error.message, path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    t.match(String(res.headers['x-svc-request-id']), REQUEST_ID, `${method} ${path} carries a request id`);
    t.match(String(res.headers['content-type']), /^application\/json/);
  }
  // A query string does not change the route.
  const res = await postJson(gatewayUrl, '/v1/chat/completions?foo=bar', chatBody());
  t.equal(res.status, 200, 'a query string on a served route is fine');
  const models = await fetch(`${gatewayUrl}/v1/models?x=1`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  t.equal(models.status, 200);
});

t.test('415 unsupported_media_type unless the content type is application/json (parameters allowed)', async (t) => {
  const { gatewayUrl } = await startTestService(t, baseConfig());
  const body = JSON.stringify(chatBody());
  const auth = { authorization: `Bearer ${TEST_KEY}` };
  for (const route of ['/v1/chat/completions', '/v1/embeddings']) {
    const none = await raw(gatewayUrl, 'POST', route, { headers: auth, body });
    t.equal(none.status, 415, `${route}: no content-type`);
    isEnvelope(t, none.json, 'unsupported_media_type', 'invalid_request_error');
    t.match(String(none.headers['x-svc-request-id']), REQUEST_ID);
    for (const type of [
      'text/plain',
      'text/plain; charset=utf-8',
      'application/x-www-form-urlencoded',
      'application/jsonx',
      'multipart/form-data; boundary=x',
      'application/json-patch+json',
    ]) {
      const res = await raw(gatewayUrl, 'POST', route, { headers: { ...auth, 'content-type': type }, body });
      t.equal(res.status, 415, `${route}: ${type}`);
      t.equal(res.json.error.code, 'unsupported_media_type');
      t.match(String(res.headers['x-svc-request-id']), REQUEST_ID);
    }
  }
  for (const type of [
    'application/json; charset=utf-8',
    'Application/JSON',
    'application/json;charset=UTF-8',
    ' application/json ',
  ]) {
    const res = await raw(gatewayUrl, 'POST', '/v1/chat/completions', {
      headers: { ...auth, 'content-type': type },
      body,
    });
    t.equal(res.status, 200, `accepted: ${JSON.stringify(type)}`);
  }
  const emb = await raw(gatewayUrl, 'POST', '/v1/embeddings', {
    headers: { ...auth, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ model: 'demo', input: 'hi' }),
  });
  t.equal(emb.status, 200, 'embeddings accept charset too');
});

t.test('413 request_too_large at the default limit of 4,718,592 bytes, with content-length and chunked', async (t) => {
  const { gatewayUrl, service } = await startTestService(t, baseConfig());
  t.equal(service.current().config.server.max_body_bytes, DEFAULT_MAX_BODY, 'the default limit is 4,718,592 bytes');
  const exact = chatBodyOfSize(DEFAULT_MAX_BODY);
  const over = chatBodyOfSize(DEFAULT_MAX_BODY + 1);
  const exactSpaces = chatBodyPaddedWithSpaces(DEFAULT_MAX_BODY);

  const accepted = await raw(gatewayUrl, 'POST', '/v1/chat/completions', { headers: withKey, body: exact });
  t.equal(accepted.status, 200, 'exactly the limit, content-length: accepted');
  t.equal(accepted.json.object, 'chat.completion');
  const acceptedSpaces = await raw(gatewayUrl, 'POST', '/v1/chat/completions', { headers: withKey, body: exactSpaces });
  t.equal(acceptedSpaces.status, 200, 'exactly the limit padded with whitespace: accepted');

  const refused = await raw(gatewayUrl, 'POST', '/v1/chat/completions', { headers: withKey, body: over });
  t.equal(refused.status, 413, 'one byte more, content-length: refused');
  isEnvelope(t, refused.json, 'request_too_large', 'invalid_request_error');
  t.match(refused.json.error.message, /4718592/);
  t.match(String(refused.headers['x-svc-request-id']), REQUEST_ID);
  t.equal(refused.headers.connection, 'close', 'the connection closes after a refused body');

  const acceptedChunked = await raw(gatewayUrl, 'POST', '/v1/chat/completions', {
    headers: withKey,
    chunks: splitInto(exact, 65_536),
  });
  t.equal(acceptedChunked.status, 200, 'exactly the limit, chunked: accepted');
  const refusedChunked = await raw(gatewayUrl, 'POST', '/v1/chat/completions', {
    headers: withKey,
    chunks: splitInto(over, 65_536),
  });
  t.equal(refusedChunked.status, 413, 'one byte more, chunked: refused');
  t.equal(refusedChunked.json.error.code, 'request_too_large');
  t.match(String(refusedChunked.headers['x-svc-request-id']), REQUEST_ID);

  // A chunked body that goes far past the limit is cut off without being read to its end.
  const huge = await raw(gatewayUrl, 'POST', '/v1/embeddings', {
    headers: withKey,
    chunks: splitInto(Buffer.alloc(3 * DEFAULT_MAX_BODY, 0x20), 1 << 20),
  });
  t.equal(huge.status, 413, 'chunked body three times the limit');

  const embOver = await raw(gatewayUrl, 'POST', '/v1/embeddings', {
    headers: withKey,
    body: Buffer.from(JSON.stringify({ model: 'demo', input: 'x'.repeat(DEFAULT_MAX_BODY) })),
  });
  t.equal(embOver.status, 413, 'embeddings have the same limit');

  const after = await postJson(gatewayUrl, '/v1/chat/completions', chatBody());
  t.equal(after.status, 200, 'the service still answers afterwards');
  t.equal(((await after.json()) as any).object, 'chat.completion');
});

t.test('server.max_body_bytes sets the limit', async (t) => {
  const { gatewayUrl } = await startTestService(
    t,
    baseConfig({ server: { host: '127.0.0.1', port: 0, admin_port: 0, max_body_bytes: 2048 } }),
  );
  t.equal(
    (await raw(gatewayUrl, 'POST', '/v1/chat/completions', { headers: withKey, body: chatBodyOfSize(2048) })).status,
    200,
  );
  t.equal(
    (await raw(gatewayUrl, 'POST', '/v1/chat/completions', { headers: withKey, body: chatBodyOfSize(2049) })).status,
    413,
  );
  t.equal(
    (
      await raw(gatewayUrl, 'POST', '/v1/chat/completions', {
        headers: withKey,
        chunks: splitInto(chatBodyOfSize(2048), 100),
      })
    ).status,
    200,
  );
  t.equal(
    (
      await raw(gatewayUrl, 'POST', '/v1/chat/completions', {
        headers: withKey,
        chunks: splitInto(chatBodyOfSize(2049), 100),
      })
    ).status,
    413,
  );
});

t.test('400 invalid_json and 400 invalid_request, every one with a request id', async (t) => {
  const { gatewayUrl } = await startTestService(t, baseConfig());
  const send = (path: string, body: string) => raw(gatewayUrl, 'POST', path, { headers: withKey, body });

  for (const body of [
    '{not json',
    '',
    '{"model":"demo","messages":[{"role":"user","content":"hi"}]',
    "{'a':1}",
    'null x',
    '\u00ff',
  ]) {
    for (const path of ['/v1/chat/completions', '/v1/embeddings']) {
      const res = await send(path, body);
      t.equal(res.status, 400, `${path} ${JSON.stringify(body)}`);
      isEnvelope(t, res.json, 'invalid_json', 'invalid_request_error');
      t.match(String(res.headers['x-svc-request-id']), REQUEST_ID);
    }
  }

  const chatCases: [string, unknown, RegExp][] = [
    ['messages missing', { model: 'demo' }, /messages/],
    ['messages empty', { model: 'demo', messages: [] }, /messages/],
    ['messages not an array', { model: 'demo', messages: 'hi' }, /messages/],
    [
      'a message without role',
      { model: 'demo', messages: [{ role: 'user', content: 'a' }, { content: 'b' }] },
      /messages\[1\]\.role/,
    ],
    ['a message with an empty role', { model: 'demo', messages: [{ role: '', content: 'a' }] }, /role/],
    ['a message that is not an object', { model: 'demo', messages: ['hi'] }, /messages\[0\]/],
    ['model not a string', { model: 5, messages: [{ role: 'user', content: 'a' }] }, /model/],
    ['stream not a boolean', { ...chatBody(), stream: 'yes' }, /stream/],
    ['max_tokens zero', { ...chatBody(), max_tokens: 0 }, /max_tokens/],
    ['body is a JSON array', [chatBody()], /JSON object/],
    ['body is a string', 'hello', /JSON object/],
    ['body is null', null, /JSON object/],
    ['body is a number', 42, /JSON object/],
  ];
  for (const [name, body, message] of chatCases) {
    const res = await send('/v1/chat/completions', JSON.stringify(body));
    t.equal(res.status, 400, `chat: ${name}`);
    isEnvelope(t, res.json, 'invalid_request', 'invalid_request_error');
    t.match(res.json.error.message, message, `chat: ${name}: message names the problem`);
    t.match(String(res.headers['x-svc-request-id']), REQUEST_ID);
  }

  const embeddingCases: [string, unknown][] = [
    ['input missing', { model: 'demo' }],
    ['input empty string', { model: 'demo', input: '' }],
    ['input empty array', { model: 'demo', input: [] }],
    ['input array of nothing useful', { model: 'demo', input: [{}] }],
    ['input a number', { model: 'demo', input: 5 }],
    ['input null', { model: 'demo', input: null }],
    ['body is a JSON array', [{ model: 'demo', input: 'x' }]],
    ['dimensions 1e308', { model: 'demo', input: 'x', dimensions: 1e308 }],
    ['dimensions one past the limit', { model: 'demo', input: 'x', dimensions: 16_385 }],
    ['dimensions zero', { model: 'demo', input: 'x', dimensions: 0 }],
    ['dimensions negative', { model: 'demo', input: 'x', dimensions: -1 }],
    ['dimensions a fraction', { model: 'demo', input: 'x', dimensions: 1.5 }],
    ['dimensions a string', { model: 'demo', input: 'x', dimensions: '256' }],
  ];
  for (const [name, body] of embeddingCases) {
    const res = await send('/v1/embeddings', JSON.stringify(body));
    t.equal(res.status, 400, `embeddings: ${name}`);
    isEnvelope(t, res.json, 'invalid_request', 'invalid_request_error');
    if (name.startsWith('dimensions'))
      t.match(res.json.error.message, /'dimensions'/, `embeddings: ${name}: the message names dimensions`);
    t.match(String(res.headers['x-svc-request-id']), REQUEST_ID);
  }
  const widest = await send('/v1/embeddings', JSON.stringify({ model: 'demo', input: 'x', dimensions: 16_384 }));
  t.equal(widest.status, 200, 'dimensions at the limit (16,384) accepted');
  t.equal(widest.json.data[0].embedding.length, 16_384);
  for (const input of ['hi', ['a', 'b'], [1, 2, 3], [[1, 2], [3]]]) {
    const res = await send('/v1/embeddings', JSON.stringify({ model: 'demo', input }));
    t.equal(res.status, 200, `embeddings input ${JSON.stringify(input)} accepted`);
    t.match(String(res.headers['x-svc-request-id']), REQUEST_ID);
  }
});

t.test('the check order decides which error wins: route, key, media type, size, JSON, shape, auth', async (t) => {
  const { gatewayUrl } = await startTestService(
    t,
    baseConfig({ server: { host: '127.0.0.1', port: 0, admin_port: 0, max_body_bytes: 2048 } }),
  );
  const big = Buffer.from(`{${' '.repeat(4096)}`); // too large and not JSON
  const wrongKey = { authorization: 'Bearer sk-wrong-wrong-wrong-wrong' };
  const cases: [
    string,
    string,
    string,
    { headers?: Record<string, string>; body?: string | Buffer },
    number,
    string,
  ][] = [
    [
      'route beats media type and key',
      'POST',
      '/v1/nope',
      { headers: { 'content-type': 'text/plain' }, body: 'x' },
      404,
      'unknown_route',
    ],
    ['route beats size', 'POST', '/v1/chat/completions/', { headers: json, body: big }, 404, 'unknown_route'],
    // The key is checked on the request head, before the body is read (docs/decisions.md "Check order").
    [
      'a missing key beats media type',
      'POST',
      '/v1/chat/completions',
      { headers: { 'content-type': 'text/plain' }, body: big },
      401,
      'invalid_api_key',
    ],
    [
      'a wrong key beats size',
      'POST',
      '/v1/chat/completions',
      { headers: { ...json, ...wrongKey }, body: big },
      401,
      'invalid_api_key',
    ],
    [
      'a wrong key beats JSON',
      'POST',
      '/v1/embeddings',
      { headers: { ...json, ...wrongKey }, body: '{bad' },
      401,
      'invalid_api_key',
    ],
    [
      'a missing key beats shape',
      'POST',
      '/v1/chat/completions',
      { headers: json, body: '{"model":"demo","messages":[]}' },
      401,
      'invalid_api_key',
    ],
    [
      'media type beats size',
      'POST',
      '/v1/chat/completions',
      { headers: { ...withKey, 'content-type': 'text/plain' }, body: big },
      415,
      'unsupported_media_type',
    ],
    [
      'media type beats JSON',
      'POST',
      '/v1/chat/completions',
      { headers: { ...withKey, 'content-type': 'text/plain' }, body: '{bad' },
      415,
      'unsupported_media_type',
    ],
    ['size beats JSON', 'POST', '/v1/chat/completions', { headers: withKey, body: big }, 413, 'request_too_large'],
    ['JSON beats shape', 'POST', '/v1/chat/completions', { headers: withKey, body: '{bad' }, 400, 'invalid_json'],
    [
      'shape beats the model check',
      'POST',
      '/v1/chat/completions',
      { headers: withKey, body: '{"model":"nope","messages":[]}' },
      400,
      'invalid_request',
    ],
    [
      'a known key, then the model check',
      'POST',
      '/v1/chat/completions',
      { headers: withKey, body: JSON.stringify(chatBody({ model: 'nope' })) },
      403,
      'model_not_allowed',
    ],
    [
      'unknown key before model check',
      'POST',
      '/v1/chat/completions',
      {
        headers: { ...json, ...wrongKey },
        body: JSON.stringify(chatBody({ model: 'nope' })),
      },
      401,
      'invalid_api_key',
    ],
    ['models route needs no body but a key', 'GET', '/v1/models', {}, 401, 'invalid_api_key'],
  ];
  for (const [name, method, path, options, status, code] of cases) {
    const res = await raw(gatewayUrl, method, path, options);
    t.equal(res.status, status, name);
    t.equal(res.json?.error?.code, code, name);
    if (path !== '/v1/models') t.match(String(res.headers['x-svc-request-id']), REQUEST_ID, `${name}: request id`);
  }
});

t.test('error type follows the status for every gateway code', async (t) => {
  // A throwaway plugin that refuses with the code named in a header (or throws a plain error).
  const refuser = pluginModule(
    t,
    'refuser',
    (errorsModule) => `import { GatewayError } from ${JSON.stringify(errorsModule)};
export default {
  apiVersion: 1,
  name: 'refuser',
  setup() {
    return {
      onRequest(ctx) {
        const code = ctx.headers['x-refuse'];
        if (code === 'plain') throw new Error('boom');
        if (code) throw new GatewayError(code, 'refused with ' + code, code.includes('limit') ? { retryAfter: 7 } : {});
      },
    };
  },
};
`,
  );
  const { gatewayUrl, adminUrl } = await startTestService(
    t,
    baseConfig({ plugins: [{ use: 'auth' }, { use: refuser }, { use: 'router' }] }),
  );
  const expectedType = (status: number) =>
    status === 401
      ? 'authentication_error'
      : status === 403
        ? 'permission_error'
        : status === 429
          ? 'rate_limit_error'
          : status >= 500
            ? 'server_error'
            : 'invalid_request_error';
  const seen = new Set<string>();
  for (const [code, status] of Object.entries(GATEWAY_ERROR_STATUS)) {
    const res = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { 'x-refuse': code });
    t.equal(res.status, status, `${code} → ${status}`);
    const body = (await res.json()) as any;
    isEnvelope(t, body, code, expectedType(status));
    t.match(res.headers.get('x-svc-request-id'), REQUEST_ID);
    t.equal(res.headers.get('x-svc-model-group'), 'demo', 'the group was resolved by auth before the refusal');
    if (code.includes('limit')) t.equal(res.headers.get('retry-after'), '7', `${code} carries retry-after`);
    seen.add(expectedType(status));
  }
  t.same([...seen].sort(), [
    'authentication_error',
    'invalid_request_error',
    'permission_error',
    'rate_limit_error',
    'server_error',
  ]);

  const crash = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { 'x-refuse': 'plain' });
  t.equal(crash.status, 500, 'an unexpected error is a 500');
  const crashBody = (await crash.json()) as any;
  isEnvelope(t, crashBody, null, 'server_error');
  t.match(crashBody.error.message, /error id [0-9a-f-]{36}/);
  t.notMatch(crashBody.error.message, /boom/, 'the internal message is not leaked');
  t.match(crash.headers.get('x-svc-request-id'), REQUEST_ID);

  const metrics = (await (await fetch(`${adminUrl}/metrics`)).json()) as any;
  t.equal(metrics.refusals.by_code.rate_limit_exceeded, 1);
  t.equal(metrics.refusals.by_code.key_blocked, 1);
  t.equal(metrics.errors.by_code.upstream_timeout, 1);
  t.equal(metrics.errors.by_code.gateway_config_stale, 1);
});

t.test('/health and /ready on both ports; /metrics on the admin port only', async (t) => {
  const { gatewayUrl, adminUrl } = await startTestService(t, baseConfig());
  for (const base of [gatewayUrl, adminUrl]) {
    for (const path of ['/health', '/ready']) {
      const res = await fetch(`${base}${path}`);
      t.equal(res.status, 200, `${base}${path}`);
      t.same(await res.json(), { status: 'ok' });
      t.match(res.headers.get('content-type'), /application\/json/);
    }
  }
  const gwMetrics = await fetch(`${gatewayUrl}/metrics`);
  t.equal(gwMetrics.status, 404, '/metrics is not on the gateway port');
  isEnvelope(t, await gwMetrics.json(), 'unknown_route', 'invalid_request_error');
  t.equal((await fetch(`${gatewayUrl}/metrics?format=prometheus`)).status, 404);

  // Some traffic of each kind.
  t.equal((await postJson(gatewayUrl, '/v1/chat/completions', chatBody())).status, 200);
  t.equal((await postJson(gatewayUrl, '/v1/chat/completions', chatBody())).status, 200);
  t.equal((await postJson(gatewayUrl, '/v1/embeddings', { model: 'demo', input: 'x' })).status, 200);
  t.equal((await postJson(gatewayUrl, '/v1/chat/completions', '{bad')).status, 400);
  t.equal(
    (await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { authorization: 'Bearer nope-nope-nope-nope' }))
      .status,
    401,
  );
  t.equal((await postJson(gatewayUrl, '/v1/chat/completions', chatBody({ model: 'other' }))).status, 403);

  const res = await fetch(`${adminUrl}/metrics`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /application\/json/);
  const m = (await res.json()) as any;
  t.match(m, {
    requests: { total: Number, by_route: Object, by_status: Object, in_flight: Number },
    refusals: { by_code: Object },
    errors: { by_code: Object },
    latency_ms: { window_requests: Number, p50: Number, p95: Number, p99: Number },
    configuration: { version: 1, source: String, loaded_at: String, reloads: 0, status: 'ok', last_reload_error: null },
    process: { pid: process.pid, node: process.version, uptime_s: Number, rss_bytes: Number, heap_used_bytes: Number },
  });
  t.equal(m.requests.total, 8, 'every gateway request is counted (2 × 404 included)');
  t.equal(m.requests.by_route.chat, 5);
  t.equal(m.requests.by_route.embeddings, 1);
  t.equal(m.requests.by_route.unknown, 2);
  t.equal(m.requests.by_status['200'], 3);
  t.equal(m.requests.in_flight, 0);
  t.same(m.refusals.by_code, { unknown_route: 2, invalid_json: 1, invalid_api_key: 1, model_not_allowed: 1 });
  t.same(m.errors.by_code, {});
  t.ok(m.latency_ms.p50 <= m.latency_ms.p95 && m.latency_ms.p95 <= m.latency_ms.p99, 'percentiles are ordered');
  t.notOk(m.requests.by_route.health, 'probes are not gateway requests');

  const prom = await fetch(`${adminUrl}/metrics?format=prometheus`);
  t.equal(prom.status, 200);
  t.match(prom.headers.get('content-type'), /^text\/plain/);
  const text = await prom.text();
  t.match(text, /# TYPE svc_gateway_requests_total counter/);
  t.match(text, /svc_gateway_requests_total\{route="chat",status="200"\} 2/);
  t.match(text, /svc_gateway_refusals_total\{code="invalid_json"\} 1/);
  t.match(text, /# TYPE svc_gateway_request_duration_seconds histogram/);
  t.equal(
    Number(/svc_gateway_request_duration_seconds_count (\d+)/.exec(text)?.[1]),
    m.requests.total,
    'every gateway request is observed',
  );
  t.match(text, /svc_gateway_in_flight_requests 0/);
  t.match(text, /svc_config_last_reload_failed 0/);
});

t.test('x-svc-request-id is unique per request and present on successes of both body routes', async (t) => {
  const { gatewayUrl } = await startTestService(t, baseConfig());
  const ids = new Set<string>();
  for (let i = 0; i < 3; i++) {
    for (const [path, body] of [
      ['/v1/chat/completions', chatBody()],
      ['/v1/embeddings', { model: 'demo', input: 'x' }],
      ['/v1/chat/completions', chatBody({ stream: true })],
    ] as const) {
      const res = await postJson(gatewayUrl, path, body);
      t.equal(res.status, 200);
      await res.arrayBuffer();
      const id = res.headers.get('x-svc-request-id')!;
      t.match(id, REQUEST_ID);
      ids.add(id);
    }
  }
  t.equal(ids.size, 9, 'every request has its own id');
});

t.test("the admin port answers paths outside its surfaces in the REST API's envelope, not Fastify's", async (t) => {
  const { adminUrl } = await startTestService(t, baseConfig());
  const surfaces = '/v1 (REST API), /api/public (public API), /dashboard/ (dashboard), /health, /ready, /metrics';
  for (const [method, path] of [
    ['GET', '/nope'],
    ['GET', '/'],
    ['POST', '/health'],
    ['DELETE', '/metrics'],
    ['GET', '/v2/traces'],
    ['GET', '/api/publicx'],
  ] as const) {
    const res = await raw(adminUrl, method, `${path}?x=1`);
    t.equal(res.status, 404, `${method} ${path}`);
    t.match(res.headers['content-type'], /^application\/json/);
    t.same(res.json, {
      error: {
        code: 'not_found',
        message: `No admin route ${method} ${path}. The admin port serves ${surfaces}.`,
        details: { method, path },
      },
    });
  }
  const undecodable = await raw(adminUrl, 'GET', '/%zz');
  t.equal(undecodable.status, 400);
  t.match(undecodable.json, {
    error: {
      code: 'invalid_request',
      message: /^The request path cannot be decoded/,
      details: { reason: 'malformed URL', location: 'path' },
    },
  });
  // Each surface keeps its own envelope for its own paths.
  t.match((await raw(adminUrl, 'GET', '/api/public/nope')).json, { message: String });
  t.match((await raw(adminUrl, 'GET', '/dashboard/api/nope')).json, { error: { code: String, message: String } });
  t.match((await raw(adminUrl, 'GET', '/v1/nope')).json, { error: { code: 'authentication_failed' } });
  for (const path of ['/nope', '/api/public/nope', '/dashboard/api/nope', '/v1/nope']) {
    t.notOk('statusCode' in ((await raw(adminUrl, 'GET', path)).json ?? {}), `${path}: not Fastify's default shape`);
  }
});
