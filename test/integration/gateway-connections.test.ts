// The gateway listener's connection limits (gateway.yaml server.request_timeout_ms, headers_timeout_ms,
// max_connections): a client trickling its body or headers is answered 408 request_timeout and cut off within the
// timeout (Node's default held it for 300 s); connections past the cap are closed as they arrive; the request
// timeout never cuts a response, streamed or slow. And a client that leaves mid-upload is an expected event: logged
// at debug with its request id, counted in /metrics, never an "unexpected gateway error".
import { connect, type Socket } from 'node:net';
import t from 'tap';
import type { Logger } from '../../src/platform/telemetry/logger.ts';
import { startFakeOpenAI } from '../helpers/fake-openai.ts';
import { baseConfig, chatBody, openaiDeployment, postJson, startTestService, TEST_KEY } from '../helpers/service.ts';
import { sleep, waitFor } from '../helpers/wait-for.ts';

interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves when the server closed the connection. */
  closed: Promise<void>;
}

async function open(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  let data = '';
  socket.setEncoding('utf8').on('data', (s: string) => (data += s));
  const closed = new Promise<void>((done) => socket.on('close', () => done()));
  await new Promise<void>((done) => socket.once('connect', () => done()));
  return { socket, received: () => data, closed };
}

const head = (length: number) =>
  `POST /v1/chat/completions HTTP/1.1\r\nhost: gateway\r\ncontent-type: application/json\r\nauthorization: Bearer ${TEST_KEY}\r\ncontent-length: ${length}\r\n\r\n`;

/** Writes `text` a byte at a time, `gapMs` apart, until the connection closes or the text runs out. */
async function trickle(c: RawConnection, text: string, gapMs: number): Promise<void> {
  let closed = false;
  void c.closed.then(() => (closed = true));
  for (const ch of text) {
    if (closed) return;
    c.socket.write(ch);
    await sleep(gapMs);
  }
}

function capturingLogger(): Logger & { records: { level: string; msg: string; fields?: Record<string, unknown> }[] } {
  const records: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    void records.push({ level, msg, fields });
  const log = { records, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => log };
  return log;
}

t.test(
  'a client trickling its body is answered 408 request_timeout and cut off within server.request_timeout_ms',
  async (t) => {
    const { gatewayUrl, adminUrl } = await startTestService(
      t,
      baseConfig({ server: { host: '127.0.0.1', port: 0, admin_port: 0, request_timeout_ms: 2_000 } }),
    );
    const body = JSON.stringify(chatBody());
    const c = await open(gatewayUrl);
    const started = performance.now();
    c.socket.write(head(body.length));
    await Promise.race([trickle(c, body, 100), c.closed]);
    await Promise.race([c.closed, sleep(20_000)]);
    const elapsed = performance.now() - started;
    t.ok(c.socket.destroyed || c.received() !== '', 'the gateway ended the exchange');
    // The bound is the timeout plus Node's once-a-second check; generous margin for a loaded machine.
    t.ok(elapsed < 2_000 + 4_000, `cut off after ${Math.round(elapsed)} ms (timeout 2,000 ms)`);
    const [statusLine, ...rest] = c.received().split('\r\n');
    t.equal(statusLine, 'HTTP/1.1 408 Request Timeout');
    const headers = rest.slice(0, rest.indexOf(''));
    t.ok(headers.includes('connection: close'), 'connection: close');
    t.ok(
      headers.some((h) => /^x-svc-request-id: [0-9a-f-]{36}$/.test(h)),
      'with the request id',
    );
    const json = JSON.parse(c.received().slice(c.received().indexOf('\r\n\r\n') + 4));
    t.same(json, {
      error: {
        message: 'The request was not received within 2000 ms (server.request_timeout_ms).',
        type: 'invalid_request_error',
        param: null,
        code: 'request_timeout',
      },
    });
    const metrics = await (await fetch(`${adminUrl}/metrics`)).json();
    t.equal(metrics.refusals.by_code.request_timeout, 1, '/metrics counts the timeout');
  },
);

t.test(
  'a client trickling its headers is answered 408 within server.headers_timeout_ms, also on a kept-alive connection',
  async (t) => {
    const { gatewayUrl } = await startTestService(
      t,
      baseConfig({
        server: { host: '127.0.0.1', port: 0, admin_port: 0, request_timeout_ms: 10_000, headers_timeout_ms: 1_000 },
      }),
    );
    const c = await open(gatewayUrl);
    // A first request answered on the connection: the slow one after it is a new exchange.
    const body = JSON.stringify(chatBody());
    c.socket.write(head(body.length) + body);
    await waitFor(
      'the first answer',
      async () => c.received().startsWith('HTTP/1.1 200') && c.received().includes('"chat.completion"'),
    );
    const started = performance.now();
    c.socket.write('POST /v1/chat/completions HTTP/1.1\r\n');
    await Promise.race([trickle(c, `x-slow: ${'a'.repeat(200)}\r\n`, 100), c.closed]);
    await Promise.race([c.closed, sleep(20_000)]);
    const elapsed = performance.now() - started;
    t.ok(
      elapsed < 1_000 + 4_000,
      `cut off after ${Math.round(elapsed)} ms (headers timeout 1,000 ms, request timeout 10,000 ms)`,
    );
    t.match(c.received(), /\}HTTP\/1\.1 408 Request Timeout\r\n/, 'after the first answer, a 408');
    t.match(c.received(), /"code":"request_timeout"/);
  },
);

t.test('connections past server.max_connections are closed as they arrive; a freed slot is usable again', async (t) => {
  const { gatewayUrl } = await startTestService(
    t,
    baseConfig({ server: { host: '127.0.0.1', port: 0, admin_port: 0, max_connections: 3 } }),
  );
  const held = await Promise.all([open(gatewayUrl), open(gatewayUrl), open(gatewayUrl)]);
  // Node counts a connection once it accepted it: let the three be accepted before the fourth arrives.
  await sleep(200);
  const extra = await open(gatewayUrl);
  await Promise.race([extra.closed, sleep(10_000)]);
  t.ok(extra.socket.destroyed, 'the fourth connection was closed');
  t.equal(extra.received(), '', 'without an answer');
  t.ok(
    held.every((c) => !c.socket.destroyed),
    'the three within the cap stay open',
  );

  held[0].socket.end(head(JSON.stringify(chatBody()).length) + JSON.stringify(chatBody()));
  await waitFor('an answer on a held connection', async () => held[0].received().startsWith('HTTP/1.1 200'));
  held[0].socket.destroy();
  await held[0].closed;
  await sleep(200);
  const res = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { connection: 'close' });
  t.equal(res.status, 200, 'a new connection is served once one closed');
  await res.arrayBuffer();
  for (const c of held) c.socket.destroy();
});

t.test('the request timeout never cuts a response: a slow answer and a long stream complete', async (t) => {
  const upstream = await startFakeOpenAI();
  t.teardown(() => upstream.close());
  const { gatewayUrl } = await startTestService(
    t,
    baseConfig({
      server: { host: '127.0.0.1', port: 0, admin_port: 0, request_timeout_ms: 1_000, headers_timeout_ms: 1_000 },
      model_groups: [{ name: 'demo', deployments: [openaiDeployment('slow', upstream.url)] }],
    }),
  );
  upstream.queue.push({ type: 'delay', ms: 2_500, then: { type: 'ok', content: 'late but whole' } });
  const slow = await postJson(gatewayUrl, '/v1/chat/completions', chatBody());
  t.equal(slow.status, 200, 'a response that takes 2.5 s');
  t.equal((await slow.json()).choices[0].message.content, 'late but whole');

  upstream.queue.push({ type: 'stream', pieces: ['one', ' two', ' three', ' four', ' five', ' six'], gapMs: 500 });
  const stream = await postJson(gatewayUrl, '/v1/chat/completions', chatBody({ stream: true }));
  t.equal(stream.status, 200);
  const text = await stream.text();
  t.match(text, /"content":" six"/, 'a stream lasting over 3 s arrives whole');
  t.ok(text.endsWith('data: [DONE]\n\n'), 'and ends with [DONE]');
});

t.test(
  'a client that leaves mid-upload: logged at debug with its request id, counted in /metrics, no error',
  async (t) => {
    const log = capturingLogger();
    const { gatewayUrl, adminUrl } = await startTestService(t, baseConfig(), { log });
    const c = await open(gatewayUrl);
    c.socket.write(`${head(1_000)}{"model":"demo","messages":[`);
    await waitFor(
      'the gateway reading the body',
      async () => ((await (await fetch(`${adminUrl}/metrics`)).json()) as any).requests.in_flight === 1,
    );
    c.socket.destroy();
    const record = await waitFor('the debug line', async () =>
      log.records.find((r) => r.msg.includes('before sending the whole body')),
    );
    t.equal(record.level, 'debug');
    t.match(record.fields, { requestId: /^[0-9a-f-]{36}$/, route: 'chat' }, 'with the request id and route');
    t.same(
      log.records.filter((r) => r.level === 'error' || r.level === 'warn'),
      [],
      'nothing logged as an error',
    );

    const metrics = await waitFor('the metrics', async () => {
      const m = (await (await fetch(`${adminUrl}/metrics`)).json()) as any;
      return m.requests.in_flight === 0 ? m : undefined;
    });
    t.equal(metrics.requests.aborted_uploads, 1, 'JSON: requests.aborted_uploads');
    t.equal(metrics.requests.by_status['499'], 1, 'JSON: counted as a 499');
    t.same(metrics.errors.by_code, {}, 'not an error');
    const prometheus = await (await fetch(`${adminUrl}/metrics?format=prometheus`)).text();
    t.match(
      prometheus,
      /^svc_gateway_aborted_uploads_total\{route="chat"\} 1$/m,
      'Prometheus: svc_gateway_aborted_uploads_total',
    );
  },
);
