// A missing or unknown key is refused on the request head, before the body is read or parsed (docs/decisions.md
// "Authentication before the body", docs/plugins.md "Refusing on the request head"): the same 401 as ever, whatever
// the body, and keep-alive goes on.
import { Agent } from 'node:http';
import { connect } from 'node:net';
import t, { type Test } from 'tap';
import { nodeRequest as send, type NodeReply as Reply } from '../helpers/node-request.ts';
import { pluginModule } from '../helpers/plugin-module.ts';
import { baseConfig, chatBody, startTestService, TEST_KEY } from '../helpers/service.ts';

const DEFAULT_MAX_BODY = 4_718_592;
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const WRONG = 'Bearer sk-wrong-wrong-wrong-wrong';
const MISSING_MESSAGE = 'Missing API key: send it as "Authorization: Bearer <key>" or in the "api-key" header.';

/** A request's body: `size` bytes of valid chat JSON (padded with whitespace). */
function chatOfSize(size: number): Buffer {
  const head = JSON.stringify(chatBody());
  return Buffer.from(head + ' '.repeat(size - Buffer.byteLength(head)));
}

/** Today's 401, exactly: status, envelope, message, and only the headers every refusal carries. */
function isKeyRefusal(t: Test, reply: Reply, message: string, name: string): void {
  t.equal(reply.status, 401, `${name}: 401`);
  t.same(
    reply.json,
    { error: { message, type: 'authentication_error', param: null, code: 'invalid_api_key' } },
    `${name}: the envelope`,
  );
  t.match(String(reply.headers['x-svc-request-id']), REQUEST_ID, `${name}: a request id`);
  t.match(String(reply.headers['x-svc-overhead-ms']), /^\d+\.\d{3}$/, `${name}: the overhead`);
  t.equal(reply.headers['content-type'], 'application/json', `${name}: JSON`);
  t.same(
    Object.keys(reply.headers)
      .filter((h) => h.startsWith('x-') || h === 'retry-after')
      .sort(),
    ['x-svc-overhead-ms', 'x-svc-request-id'],
    `${name}: no other gateway header`,
  );
}

t.test('a missing or unknown key is 401 whatever the body: large, over the limit, not JSON', async (t) => {
  const { gatewayUrl, adminUrl } = await startTestService(t, baseConfig());
  const json = { 'content-type': 'application/json' };
  const chat = '/v1/chat/completions';

  const cases: [string, string, string, Parameters<typeof send>[3], string][] = [
    [
      'a wrong key, 3 MB body',
      'POST',
      chat,
      { headers: { ...json, authorization: WRONG }, body: chatOfSize(3 << 20) },
      'Invalid API key.',
    ],
    [
      'a wrong key, a body over max_body_bytes',
      'POST',
      chat,
      { headers: { ...json, authorization: WRONG }, body: chatOfSize(DEFAULT_MAX_BODY + 1) },
      'Invalid API key.',
    ],
    [
      'a wrong key, a chunked body over max_body_bytes',
      'POST',
      '/v1/embeddings',
      {
        headers: { ...json, authorization: WRONG },
        chunks: Array.from({ length: 6 }, () => Buffer.alloc(1 << 20, 0x20)),
      },
      'Invalid API key.',
    ],
    [
      'a wrong key, invalid JSON',
      'POST',
      chat,
      { headers: { ...json, authorization: WRONG }, body: '{bad' },
      'Invalid API key.',
    ],
    ['no key, invalid JSON', 'POST', '/v1/embeddings', { headers: json, body: '{bad' }, MISSING_MESSAGE],
    [
      'no key, the wrong media type',
      'POST',
      chat,
      { headers: { 'content-type': 'text/plain' }, body: 'hi' },
      MISSING_MESSAGE,
    ],
    ['a wrong api-key header, no body', 'POST', chat, { headers: { ...json, 'api-key': 'nope' } }, 'Invalid API key.'],
    ['models, no key', 'GET', '/v1/models', {}, MISSING_MESSAGE],
    ['models, a wrong key', 'GET', '/v1/models', { headers: { authorization: WRONG } }, 'Invalid API key.'],
  ];
  for (const [name, method, path, options, message] of cases)
    isKeyRefusal(t, await send(gatewayUrl, method, path, options), message, name);

  // With the right key the body is read and checked as before.
  const bad = await send(gatewayUrl, 'POST', chat, {
    headers: { ...json, authorization: `Bearer ${TEST_KEY}` },
    body: '{bad',
  });
  t.equal(bad.status, 400, 'a valid key, invalid JSON: 400');
  t.equal(bad.json.error.code, 'invalid_json');
  const over = await send(gatewayUrl, 'POST', chat, {
    headers: { ...json, authorization: `Bearer ${TEST_KEY}` },
    body: chatOfSize(DEFAULT_MAX_BODY + 1),
  });
  t.equal(over.status, 413, 'a valid key, a body over the limit: 413');
  t.equal(over.json.error.code, 'request_too_large');

  // The probes need no key.
  for (const path of ['/health', '/ready']) t.equal((await send(gatewayUrl, 'GET', path)).status, 200, path);

  // Counted as refusals of their routes, as before.
  const m = (await (await fetch(`${adminUrl}/metrics`)).json()) as any;
  t.equal(m.refusals.by_code.invalid_api_key, cases.length);
  t.equal(m.requests.by_route.chat, 7, 'five wrong keys, two right keys with bad bodies');
  t.equal(m.requests.by_route.embeddings, 2);
  t.equal(m.requests.by_route.models, 2);
  t.equal(m.requests.by_status['401'], cases.length);
  t.equal(m.requests.in_flight, 0);
});

t.test('the key is refused before the body arrives, and keep-alive goes on after it', async (t) => {
  const { gatewayUrl } = await startTestService(t, baseConfig());
  const { hostname, port } = new URL(gatewayUrl);

  // Headers announcing a body that is never sent: the 401 comes anyway, so nothing waited for the body.
  const early = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    const timer = setTimeout(() => reject(new Error('no answer before the body')), 5_000);
    socket.on('error', reject);
    socket.on('data', (d: Buffer) => {
      text += d.toString('utf8');
      if (text.includes('\r\n\r\n') && text.includes('"code":"invalid_api_key"')) {
        clearTimeout(timer);
        socket.destroy();
        resolve(text);
      }
    });
    socket.write(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\n` +
        `authorization: ${WRONG}\r\ncontent-length: 100000\r\n\r\n`,
    );
  });
  t.match(early, /^HTTP\/1\.1 401 /, 'answered while the body is still to come');
  t.notMatch(early, /\r\nconnection: close\r\n/i, 'a body within max_body_bytes: the connection is kept');

  // A body the gateway would not read to its end (declared over max_body_bytes, or chunked with no length), never
  // sent whole: the 401 closes the connection instead of reading on until the request timeout.
  for (const [name, framing] of [
    ['declared over max_body_bytes', `content-length: ${DEFAULT_MAX_BODY + 1}\r\n\r\n{"model":`],
    ['chunked', 'transfer-encoding: chunked\r\n\r\n9\r\n{"model":\r\n'],
  ]) {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      let text = '';
      const timer = setTimeout(() => reject(new Error(`${name}: the connection was not closed`)), 5_000);
      socket.on('error', reject);
      socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
      socket.on('end', () => {
        clearTimeout(timer);
        socket.destroy();
        resolve(text);
      });
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\n` +
          `authorization: ${WRONG}\r\n${framing}`,
      );
    });
    t.match(answer, /^HTTP\/1\.1 401 /, `${name}: 401`);
    t.match(answer, /\r\nconnection: close\r\n/i, `${name}: connection: close, and the gateway ends it`);
    t.match(answer, /"code":"invalid_api_key"/);
  }

  // One connection: wrong keys with bodies (small, 3 MB, over the limit), each followed by a valid request on it.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const headers = (auth: string) => ({ 'content-type': 'application/json', authorization: auth });
  const first = await send(gatewayUrl, 'POST', '/v1/chat/completions', {
    agent,
    headers: headers(`Bearer ${TEST_KEY}`),
    body: JSON.stringify(chatBody()),
  });
  t.equal(first.status, 200);
  for (const [name, body] of [
    ['a small body', Buffer.from(JSON.stringify(chatBody()))],
    ['a 3 MB body', chatOfSize(3 << 20)],
  ] as const) {
    const refused = await send(gatewayUrl, 'POST', '/v1/chat/completions', { agent, headers: headers(WRONG), body });
    t.equal(refused.status, 401, `${name}: 401`);
    t.notOk(refused.headers.connection === 'close', `${name}: the connection stays open`);
    t.equal(refused.localPort, first.localPort, `${name}: sent on the kept-alive connection`);
    const next = await send(gatewayUrl, 'POST', '/v1/chat/completions', {
      agent,
      headers: headers(`Bearer ${TEST_KEY}`),
      body: JSON.stringify(chatBody()),
    });
    t.equal(next.status, 200, `${name}: the next request on the connection is served`);
    t.equal(next.json.object, 'chat.completion');
    // (After a body the client was still sending when the 401 came, the agent hands the connection to the waiting
    // request as it frees, without marking it reused: the local port tells.)
    t.type(next.localPort, 'number');
    t.equal(next.localPort, first.localPort, `${name}: on the same connection`);
  }
});

t.test(
  'a plugin head hook: runs before the body with route, headers and address; a throw is the refusal',
  async (t) => {
    const door = pluginModule(
      t,
      'door',
      (errorsModule) => `import { GatewayError } from ${JSON.stringify(errorsModule)};
export default {
  apiVersion: 1,
  name: 'door',
  setup() {
    return {
      async onRequestHead(head) {
        await new Promise((r) => setImmediate(r));
        if (head.headers['x-door'] === 'shut')
          throw new GatewayError('rate_limit_exceeded', 'shut for ' + head.route + ' from ' + head.clientIp, { retryAfter: 3 });
      },
      onRequest(ctx) {
        if (ctx.headers['x-door'] === 'late') throw new GatewayError('rate_limit_exceeded', 'late');
      },
    };
  },
};
`,
    );
    const { gatewayUrl } = await startTestService(
      t,
      baseConfig({ plugins: [{ use: door }, { use: 'auth' }, { use: 'router' }] }),
    );
    const json = { 'content-type': 'application/json' };
    const shut = await send(gatewayUrl, 'POST', '/v1/embeddings', {
      headers: { ...json, 'x-door': 'shut' },
      body: '{bad',
    });
    t.equal(shut.status, 429, 'the first head hook in list order refuses, before auth and before the body');
    t.equal(shut.json.error.message, 'shut for embeddings from 127.0.0.1');
    t.equal(shut.headers['retry-after'], '3');
    t.match(String(shut.headers['x-svc-request-id']), REQUEST_ID);
    const late = await send(gatewayUrl, 'POST', '/v1/chat/completions', {
      headers: { ...json, 'x-door': 'late' },
      body: JSON.stringify(chatBody()),
    });
    t.equal(late.status, 401, "every head hook runs before any onRequest: auth's head refuses first");
    const ok = await send(gatewayUrl, 'POST', '/v1/chat/completions', {
      headers: { ...json, authorization: `Bearer ${TEST_KEY}` },
      body: JSON.stringify(chatBody()),
    });
    t.equal(ok.status, 200);
  },
);
