// Streamed chat completions as raw SSE through fetch: relaying, headers at the first upstream byte, the usage
// chunk, in-band errors after the stream started, retries before it started, and client disconnects.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { startFakeOpenAI, type Behaviour, type FakeOpenAI } from '../helpers/fake-openai.ts';
import { TEST_KEY, baseConfig, chatBody, openaiDeployment, postJson, startTestService } from '../helpers/service.ts';
import { sleep, waitFor } from '../helpers/wait-for.ts';

const PRICE = { input_per_mtok: 1, output_per_mtok: 2 };

async function fake(t: Test, fallback: Behaviour = { type: 'ok' }): Promise<FakeOpenAI> {
  const f = await startFakeOpenAI(fallback);
  t.teardown(() => f.close());
  return f;
}

function configWith(
  deployments: Record<string, unknown>[],
  routing: Record<string, unknown> = {},
  router: Record<string, unknown> = {},
) {
  return baseConfig({
    model_groups: [{ name: 's', created_at: '2026-11-21T00:00:00Z', routing, deployments }],
    keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['s'] }],
    plugins: [{ use: 'auth' }, { use: 'router', config: router }],
  });
}

const streamBody = (extra: Record<string, unknown> = {}) => chatBody({ model: 's', stream: true, ...extra });

/** The `data:` payloads of an SSE body, in order; asserts every event is a single data line. */
function events(t: Test, text: string): string[] {
  t.ok(text.endsWith('\n\n'), 'the body ends with a complete event');
  return text
    .split('\n\n')
    .filter((e) => e !== '')
    .map((e) => {
      t.match(e, /^data: [^\n]*$/, 'one data line per event');
      return e.slice('data: '.length);
    });
}

/** Parses every event but the final [DONE]. */
function chunksOf(t: Test, text: string): any[] {
  const all = events(t, text);
  t.equal(all.at(-1), '[DONE]', 'the stream ends with data: [DONE]');
  t.equal(all.filter((e) => e === '[DONE]').length, 1, 'exactly one [DONE]');
  return all.slice(0, -1).map((e) => JSON.parse(e));
}

const contentOf = (chunks: any[]) => chunks.map((c) => c.choices?.[0]?.delta?.content ?? '').join('');

t.test('chunks are relayed as SSE and end with data: [DONE]', async (t) => {
  const up = await fake(t, { type: 'stream', pieces: ['Hello', ' there', ', streaming', ' world'] });
  const { gatewayUrl } = await startTestService(t, configWith([openaiDeployment('a', up.url, { price: PRICE })]));
  const res = await postJson(gatewayUrl, '/v1/chat/completions', streamBody());
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/event-stream/);
  t.equal(res.headers.get('cache-control'), 'no-cache');
  t.equal(res.headers.get('x-svc-model-group'), 's');
  t.equal(res.headers.get('x-svc-deployment'), 'a');
  t.match(res.headers.get('x-svc-request-id'), /^[0-9a-f-]{36}$/);
  t.match(JSON.parse(res.headers.get('x-svc-attempts')!), [{ d: 'a', o: 'ok', ms: Number }]);
  const chunks = chunksOf(t, await res.text());
  t.equal(chunks.length, 6, 'role chunk, four content chunks, finish chunk');
  for (const c of chunks) t.match(c, { object: 'chat.completion.chunk', id: 'chatcmpl-fake-stream', choices: Array });
  t.same(chunks[0].choices[0].delta, { role: 'assistant', content: '' });
  t.equal(contentOf(chunks), 'Hello there, streaming world');
  t.equal(chunks.at(-1).choices[0].finish_reason, 'stop');
});

t.test('the mock provider streams the same way', async (t) => {
  const { gatewayUrl } = await startTestService(t, baseConfig());
  const res = await postJson(gatewayUrl, '/v1/chat/completions', chatBody({ stream: true }));
  t.equal(res.status, 200);
  const chunks = chunksOf(t, await res.text());
  t.match(contentOf(chunks), /You said: "Hello"/);
  for (const c of chunks) t.notOk('usage' in c, 'no usage key when the client did not ask');
});

t.test('headers go out with the first upstream byte, with the admission cost estimate', async (t) => {
  const up = await fake(t, { type: 'delay', ms: 80, then: { type: 'stream', gapMs: 40 } });
  const { gatewayUrl } = await startTestService(t, configWith([openaiDeployment('a', up.url, { price: PRICE })]));
  const started = performance.now();
  const res = await postJson(gatewayUrl, '/v1/chat/completions', streamBody({ max_tokens: 50 }));
  const headersAt = performance.now() - started;
  const text = await res.text();
  const endAt = performance.now() - started;
  t.equal(res.status, 200);
  t.ok(headersAt >= 70, `no headers before the provider's first byte (${Math.round(headersAt)} ms)`);
  t.ok(
    endAt - headersAt >= 120,
    `headers came well before the end of the stream (${Math.round(headersAt)} / ${Math.round(endAt)} ms)`,
  );
  t.equal(res.headers.get('x-svc-cost-estimated'), 'true');
  // Admission estimate: prompt 3 + (4 + ceil(5/4)) = 9 tokens at 1 USD/Mtok, plus max_tokens 50 at 2 USD/Mtok.
  t.equal(res.headers.get('x-svc-cost'), '0.000109');
  t.equal(contentOf(chunksOf(t, text)), 'Hello from fake');
});

t.test('without max_tokens the estimate assumes 4096 output tokens', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(t, configWith([openaiDeployment('a', up.url, { price: PRICE })]));
  const res = await postJson(gatewayUrl, '/v1/chat/completions', streamBody());
  t.equal(res.headers.get('x-svc-cost'), '0.008201', '9 prompt tokens + 4096 * 2');
  t.equal(res.headers.get('x-svc-cost-estimated'), 'true');
  await res.text();
});

t.test('the upstream is always asked for the usage chunk', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(t, configWith([openaiDeployment('a', up.url)]));
  const variants: Record<string, unknown>[] = [
    {},
    { stream_options: { include_usage: false } },
    { stream_options: { include_usage: true } },
    { stream_options: null },
  ];
  for (const extra of variants) {
    const res = await postJson(gatewayUrl, '/v1/chat/completions', streamBody(extra));
    t.equal(res.status, 200, JSON.stringify(extra));
    await res.text();
  }
  t.equal(up.requests.length, variants.length);
  for (const r of up.requests) {
    t.equal(r.body.stream, true);
    t.same(r.body.stream_options, { include_usage: true });
    t.equal(r.body.model, 'model-a');
  }
});

t.test('a client that did not ask for usage gets no usage chunk and no usage key', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(t, configWith([openaiDeployment('a', up.url)]));
  for (const extra of [{}, { stream_options: { include_usage: false } }]) {
    const res = await postJson(gatewayUrl, '/v1/chat/completions', streamBody(extra));
    const chunks = chunksOf(t, await res.text());
    t.equal(chunks.length, 5, 'role, three content chunks, finish');
    for (const c of chunks) {
      t.notOk('usage' in c, 'no usage key');
      t.equal(c.choices.length, 1, 'no choices-less usage chunk');
    }
  }
});

t.test('a client that asked for usage gets the final usage chunk', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(t, configWith([openaiDeployment('a', up.url)]));
  const res = await postJson(
    gatewayUrl,
    '/v1/chat/completions',
    streamBody({ stream_options: { include_usage: true } }),
  );
  const chunks = chunksOf(t, await res.text());
  t.equal(chunks.length, 6);
  for (const c of chunks.slice(0, -1)) t.equal(c.usage, null, 'usage: null on the content chunks, as OpenAI sends it');
  const last = chunks.at(-1);
  t.same(last.choices, []);
  t.same(last.usage, { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 });
});

t.test('a stream cut after it started ends with an in-band error event, then [DONE]', async (t) => {
  const up = await fake(t, { type: 'stream', cutAfter: 3 });
  const { gatewayUrl, adminUrl } = await startTestService(
    t,
    configWith([openaiDeployment('a', up.url)], { retries: 2 }),
  );
  const res = await postJson(gatewayUrl, '/v1/chat/completions', streamBody());
  t.equal(res.status, 200, 'the status was committed with the first chunk');
  const chunks = chunksOf(t, await res.text());
  const relayed = chunks.slice(0, -1);
  // The fake destroys its socket right after its last write, so the last frame may arrive cut in half.
  t.ok(
    relayed.length >= 1 && relayed.length <= 3,
    `the chunks received before the cut were relayed (${relayed.length})`,
  );
  for (const c of relayed) t.match(c, { object: 'chat.completion.chunk' });
  t.ok('Hello from fake'.startsWith(contentOf(relayed)));
  const err = chunks.at(-1);
  t.same(Object.keys(err), ['error'], 'the last event before [DONE] is the error');
  t.match(err.error.message, /^stream interrupted/);
  t.same(err.error, { message: err.error.message, type: 'server_error', param: null, code: 'upstream_stream_error' });
  t.equal(up.requests.length, 1, 'a started stream is not retried');
  const metrics = (await (await fetch(`${adminUrl}/metrics`)).json()) as any;
  t.equal(metrics.errors.by_code.upstream_stream_error, 1, 'counted as an upstream_stream_error');
  t.equal(metrics.requests.by_status['200'], 1);
});

t.test('an in-stream provider error event ends the stream the same way', async (t) => {
  const up = await fake(t, { type: 'stream', errorAfter: 3 });
  const { gatewayUrl } = await startTestService(t, configWith([openaiDeployment('a', up.url)]));
  const res = await postJson(gatewayUrl, '/v1/chat/completions', streamBody());
  t.equal(res.status, 200);
  const chunks = chunksOf(t, await res.text());
  t.equal(chunks.length, 4);
  t.equal(contentOf(chunks.slice(0, 3)), 'Hello from');
  t.same(chunks[3], {
    error: {
      message: 'stream interrupted: overloaded',
      type: 'server_error',
      param: null,
      code: 'upstream_stream_error',
    },
  });
});

t.test('an upstream that stalls after the first chunk is cut off by the timeout', async (t) => {
  const up = await stallingUpstream(t);
  const { gatewayUrl } = await startTestService(t, configWith([openaiDeployment('a', up.url)], { timeout_ms: 100 }));
  const started = performance.now();
  const res = await postJson(gatewayUrl, '/v1/chat/completions', streamBody());
  t.equal(res.status, 200);
  const chunks = chunksOf(t, await res.text());
  const elapsed = performance.now() - started;
  t.equal(chunks.length, 2, 'the first chunk, then the error event');
  t.same(chunks[1], {
    error: {
      message: 'stream interrupted: provider did not answer in time',
      type: 'server_error',
      param: null,
      code: 'upstream_stream_error',
    },
  });
  // The attempt timer is refreshed per chunk, so a gap longer than timeout_ms ends the stream.
  t.ok(elapsed >= 100 && elapsed < 600, `cut off after ${Math.round(elapsed)} ms`);
  await waitFor('the upstream connection was dropped', () => up.closed, 1000);
});

t.test('a failure before the first byte is retried transparently', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(
    t,
    configWith([openaiDeployment('a', up.url)], { retries: 2, max_backoff_ms: 10 }, { backoff_base_ms: 1 }),
  );
  up.queue.push({ type: 'error', status: 500 }, { type: 'stream', cutAfter: 0 });
  const res = await postJson(gatewayUrl, '/v1/chat/completions', streamBody());
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/event-stream/);
  const attempts = JSON.parse(res.headers.get('x-svc-attempts')!);
  t.equal(attempts.length, 3);
  t.match(attempts, [
    { d: 'a', o: 'retryable', st: 500 },
    { d: 'a', o: 'retryable' },
    { d: 'a', o: 'ok' },
  ]);
  t.notOk('st' in attempts[1], 'a reset has no provider status');
  const chunks = chunksOf(t, await res.text());
  t.equal(contentOf(chunks), 'Hello from fake');
  t.notOk(chunks.some((c) => 'error' in c));
  t.equal(up.requests.length, 3);
});

t.test('failures before the first byte give a plain JSON error, not a stream', async (t) => {
  const envelope = {
    error: {
      message: 'context too long',
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  };
  const cases: [Behaviour, number, string | undefined][] = [
    [{ type: 'hang' }, 504, 'upstream_timeout'],
    [{ type: 'reset' }, 502, 'upstream_unreachable'],
    [{ type: 'error', status: 400, envelope }, 400, undefined],
    // A 200 that is not an event stream.
    [{ type: 'json', body: { id: 'x', object: 'chat.completion' } }, 502, 'upstream_invalid_response'],
  ];
  for (const [behaviour, status, code] of cases) {
    const up = await fake(t, behaviour);
    const { gatewayUrl } = await startTestService(
      t,
      configWith([openaiDeployment('a', up.url)], { retries: 0, timeout_ms: 100 }),
    );
    const res = await postJson(gatewayUrl, '/v1/chat/completions', streamBody());
    t.equal(res.status, status, behaviour.type);
    t.match(res.headers.get('content-type'), /^application\/json/);
    const body = (await res.json()) as any;
    if (code) t.match(body, { error: { code, type: 'server_error', param: null } });
    else t.same(body, envelope);
  }
});

/**
 * An upstream that streams `frames` content chunks `gapMs` apart and records whether its response was
 * closed before it had written everything.
 */
async function slowUpstream(t: Test, frames: number, gapMs: number) {
  const state = { written: 0, finished: false, closedEarly: false };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.on('close', () => {
        if (!state.finished) state.closedEarly = true;
      });
      const base = { id: 'chatcmpl-slow', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'slow' };
      for (let i = 0; i < frames; i++) {
        if (res.destroyed) return;
        res.write(
          `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: `w${i} ` }, finish_reason: null }], usage: null })}\n\n`,
        );
        state.written++;
        await sleep(gapMs);
      }
      if (res.destroyed) return;
      res.write(
        `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: null })}\n\n`,
      );
      res.write(
        `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 9, completion_tokens: frames, total_tokens: 9 + frames } })}\n\n`,
      );
      state.finished = true;
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, state };
}

/** An upstream that sends one chunk and then nothing, holding the connection open. */
async function stallingUpstream(t: Test) {
  const state = { url: '', closed: false };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })}\n\n`,
      );
      res.on('close', () => {
        state.closed = true;
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** Reads the first SSE bytes of a stream, then drops the connection. */
async function readThenDisconnect(gatewayUrl: string): Promise<void> {
  const controller = new AbortController();
  const res = await fetch(`${gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
    body: JSON.stringify(streamBody()),
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  const first = await reader.read();
  if (first.done) throw new Error('stream ended early');
  controller.abort();
  await reader.cancel().catch(() => {});
}

t.test('after a client disconnects the gateway keeps reading the upstream to the end', async (t) => {
  const frames = 15;
  const up = await slowUpstream(t, frames, 15);
  const { gatewayUrl, adminUrl } = await startTestService(
    t,
    configWith([openaiDeployment('a', up.url, { price: PRICE })]),
  );
  const metrics = async () => (await (await fetch(`${adminUrl}/metrics`)).json()) as any;
  await readThenDisconnect(gatewayUrl);
  await sleep(40);
  t.notOk(up.state.finished, 'the client left before the upstream finished');
  t.equal((await metrics()).requests.in_flight, 1, 'the request is still being drained');
  await waitFor('the upstream wrote everything', () => up.state.finished, 2000);
  t.equal(up.state.written, frames);
  t.notOk(up.state.closedEarly, 'the gateway did not drop the upstream connection early');
  await waitFor('the request then finished', async () => (await metrics()).requests.in_flight === 0, 1000);
  t.equal((await metrics()).requests.by_status['200'], 1);
});

t.test('after a disconnect, draining stops after disconnect_drain_chunks', async (t) => {
  const frames = 30;
  const up = await slowUpstream(t, frames, 10);
  const { gatewayUrl, adminUrl } = await startTestService(
    t,
    configWith([openaiDeployment('a', up.url)], {}, { disconnect_drain_chunks: 2 }),
  );
  await readThenDisconnect(gatewayUrl);
  await waitFor('the gateway closed the upstream connection', () => up.state.closedEarly, 1000);
  t.notOk(up.state.finished);
  t.ok(up.state.written < frames, `stopped after ${up.state.written} of ${frames} chunks`);
  const metrics = (await (await fetch(`${adminUrl}/metrics`)).json()) as any;
  t.equal(metrics.requests.in_flight, 0);
});
