// Stream pass-through (docs/decisions.md "Stream pass-through"): when no plugin edits events, the client gets the
// provider's event text as it was sent (less the usage it did not ask for); a plugin that edits events still gets its
// edits through; usage still settles in the budget ledger, the rate-limit window and the trace, also after the client
// left mid-stream; and a break upstream still ends the stream with the in-band error.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import t, { type Test } from 'tap';
import type { Queryable } from '../../src/platform/store/database.ts';
import { getTrace, type StoredTrace } from '../../src/platform/store/repos/traces.ts';
import { ledgerSpend } from '../helpers/budget-fixtures.ts';
import { startFakeOpenAI } from '../helpers/fake-openai.ts';
import { roomInMinute } from '../helpers/gateways.ts';
import { baseConfig, chatBody, openaiDeployment, startTestService } from '../helpers/service.ts';
import { sleep, waitFor } from '../helpers/wait-for.ts';

const key = (name: string) => `sk-test-${name}-0123456789abcdef`;
/** One token costs $0.001 in and out: a cost in nano-USD is tokens * 1e6. */
const PRICE = { input_per_mtok: 1000, output_per_mtok: 1000 };
/** Prompt estimate of chatBody()'s one "Hello" message. */
const HELLO_PROMPT = 9;
const TPM = 2000;

const HEAD =
  '"id":"chatcmpl-pt","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini-2024-07-18"';
const delta = (d: string, finish: string | null) =>
  `{${HEAD},"choices":[{"index":0,"delta":${d},"logprobs":null,"finish_reason":${finish === null ? 'null' : `"${finish}"`}}],"usage":null}`;
/**
 * A stream as OpenAI writes it when asked for usage: `"usage":null` last in every chunk, then the usage chunk. The
 * escapes (`\u00e9`, `\/`) are what a serialiser would write otherwise, so only pass-through keeps them.
 */
const FRAMES = [
  delta('{"role":"assistant","content":"","refusal":null}', null),
  delta('{"content":"Caf\\u00e9 au lait \\/ 1.50"}', null),
  delta('{"content":" \u2014 \u65e5\u672c\u8a9e \ud83d\ude00"}', null),
  delta('{}', 'stop'),
  `{${HEAD},"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":5,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":0}}}`,
];
/** The same for a client that did not ask for usage: no `usage` member, no usage chunk. */
const FRAMES_WITHOUT_USAGE = FRAMES.slice(0, -1).map((f) => f.replace(/,"usage":null\}$/, '}'));
const ANSWER = 'Caf\u00e9 au lait / 1.50 \u2014 \u65e5\u672c\u8a9e \ud83d\ude00';
const sse = (datas: string[]) => datas.map((d) => `data: ${d}\n\n`).join('');
const DONE = 'data: [DONE]\n\n';

interface RawUpstream {
  url: string;
  /** The data of the events each request gets. */
  frames: string[];
  /** Destroy the socket after this many events instead of finishing. */
  cutAfter?: number;
}

/**
 * An OpenAI-wire upstream that writes exactly the given event text, each event in two writes cut inside its first
 * multi-byte character (or in its middle), so the gateway's decoder must reassemble text and characters.
 */
async function rawUpstream(t: Test, frames: string[]): Promise<RawUpstream> {
  const up: RawUpstream = { url: '', frames };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const events = up.frames.map((f) => `data: ${f}\n\n`);
      for (const [i, event] of events.entries()) {
        if (i === up.cutAfter) {
          await sleep(20);
          req.socket.destroy();
          return;
        }
        const bytes = Buffer.from(event);
        const wide = bytes.findIndex((b) => b >= 0x80);
        const cut = wide >= 0 ? wide + 1 : bytes.length >> 1;
        res.write(bytes.subarray(0, cut));
        await sleep(1);
        res.write(bytes.subarray(cut));
      }
      res.end(DONE);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  up.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return up;
}

function chat(url: string, name: string, extra: Record<string, unknown>, init: RequestInit = {}): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key(name)}` },
    body: JSON.stringify(chatBody({ stream: true, max_tokens: 100, ...extra })),
    ...init,
  });
}

/** A streamed chat of the `raw` group through the `openai` SDK, as a user would make it. */
function sdkStream(gatewayUrl: string, alias: string, includeUsage: boolean) {
  const sdk = new OpenAI({ baseURL: `${gatewayUrl}/v1`, apiKey: key(alias), maxRetries: 0 });
  return sdk.chat.completions.create({
    model: 'raw',
    messages: [{ role: 'user', content: 'Hello' }],
    max_tokens: 100,
    stream: true,
    ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
  });
}

const traceOf = (db: Queryable, res: Response): Promise<StoredTrace> =>
  waitFor('trace stored', () => getTrace(db, 'default', res.headers.get('x-svc-request-id')!), 15_000);

/** Waits until the key's ledger has `requests` requests; answers its nano-USD. */
const settled = (db: Queryable, alias: string, requests: number) =>
  waitFor(`${requests} requests of ${alias} settled`, async () => {
    const l = await ledgerSpend(db, `key:${alias}:total`);
    return l.requests === requests && l.nano;
  });

/** Auth, rate limits and budgets before the router, tracing after it (reading ctx.streamed): no event hook. */
function governedConfig(rawUrl: string, fakeUrl: string, plugins: unknown[] = []) {
  const keyOf = (alias: string) => ({
    alias,
    key: key(alias),
    project: 'default',
    model_groups: ['raw', 'fake', 'az'],
    budget_usd: 100,
    tpm: TPM,
  });
  return baseConfig({
    model_groups: [
      { name: 'raw', deployments: [openaiDeployment('raw-up', rawUrl, { price: PRICE })] },
      { name: 'fake', deployments: [openaiDeployment('fake-up', fakeUrl, { price: PRICE })] },
      {
        name: 'az',
        deployments: [
          {
            id: 'az-up',
            provider: 'azure',
            base_url: rawUrl,
            deployment: 'mini',
            api_version: '2024-10-21',
            api_key: 'azure-key',
            price: PRICE,
          },
        ],
      },
    ],
    keys: ['asks', 'quiet', 'azure', 'leaves', 'edits', 'cut'].map(keyOf),
    plugins: [
      { use: 'auth' },
      { use: 'rate-limit' },
      { use: 'budget' },
      { use: 'router' },
      ...plugins,
      { use: 'tracing' },
    ],
  });
}

t.test('no plugin edits events: the client gets the provider bytes, usage settles', async (t) => {
  const raw = await rawUpstream(t, FRAMES);
  const fake = await startFakeOpenAI();
  t.teardown(() => fake.close());
  const { gatewayUrl, service } = await startTestService(t, governedConfig(raw.url, fake.url));
  const db = service.db;

  t.test('a client that asked for usage: every event byte for byte', async (t) => {
    const res = await chat(gatewayUrl, 'asks', { model: 'raw', stream_options: { include_usage: true } });
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^text\/event-stream/);
    t.equal(await res.text(), sse(FRAMES) + DONE, 'the provider text, usage chunk included, then [DONE]');
    const trace = await traceOf(db, res);
    t.match(trace, { status: 'completed', tokens: 12, output: { role: 'assistant', content: ANSWER } });
    t.equal(await settled(db, 'asks', 1), 12 * 1e6, 'the budget ledger has the real usage');
  });

  t.test('Azure shares the transport: byte for byte too', async (t) => {
    const res = await chat(gatewayUrl, 'azure', { model: 'az', stream_options: { include_usage: true } });
    t.equal(res.headers.get('x-svc-deployment'), 'az-up');
    t.equal(await res.text(), sse(FRAMES) + DONE);
    const quiet = await chat(gatewayUrl, 'azure', { model: 'az' });
    t.equal(await quiet.text(), sse(FRAMES_WITHOUT_USAGE) + DONE);
  });

  t.test('a client that did not ask: the usage member and the usage chunk left out, the rest as sent', async (t) => {
    const res = await chat(gatewayUrl, 'quiet', { model: 'raw' });
    t.notSame(FRAMES_WITHOUT_USAGE, FRAMES.slice(0, -1));
    t.equal(await res.text(), sse(FRAMES_WITHOUT_USAGE) + DONE);
    t.match(await traceOf(db, res), { tokens: 12, output: { content: ANSWER } });
    t.equal(await settled(db, 'quiet', 1), 12 * 1e6, 'settled from the usage the client never saw');
  });

  t.test('a chunk laid out otherwise is serialised again when its usage member must go', async (t) => {
    const spaced =
      '{"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "caf\\u00e9"}, "finish_reason": "stop"}], "usage": null}';
    raw.frames = [spaced, FRAMES.at(-1)!];
    t.teardown(() => {
      raw.frames = FRAMES;
    });
    const quiet = await chat(gatewayUrl, 'quiet', { model: 'raw' });
    const { usage: _usage, ...rest } = JSON.parse(spaced);
    t.equal(await quiet.text(), sse([JSON.stringify(rest)]) + DONE, 'as before pass-through: the chunk serialised');
    const asks = await chat(gatewayUrl, 'asks', { model: 'raw', stream_options: { include_usage: true } });
    t.equal(await asks.text(), sse(raw.frames) + DONE, 'nothing to take off: as sent');
  });

  t.test('a client that leaves mid-stream: budget, rate limit and trace settle to the usage read after', async (t) => {
    await roomInMinute(10);
    const pieces = Array.from({ length: 20 }, (_, i) => `w${i} `);
    fake.queue.push({ type: 'stream', pieces, gapMs: 15 });
    const controller = new AbortController();
    const res = await chat(gatewayUrl, 'leaves', { model: 'fake', max_tokens: 500 }, { signal: controller.signal });
    t.equal(res.status, 200);
    const reader = res.body!.getReader();
    t.notOk((await reader.read()).done, 'the first bytes arrived');
    controller.abort();
    await reader.cancel().catch(() => {});
    // The fake upstream reports 12 prompt tokens and one completion token a piece.
    const used = 12 + pieces.length;
    const trace = await traceOf(db, res);
    t.match(trace, {
      tokens: used,
      output: { content: pieces.join('') },
      metadata: { 'gateway.client_aborted': true },
    });
    t.equal(await settled(db, 'leaves', 1), used * 1e6, 'the budget ledger has the usage read after the client left');
    const left = TPM - used - HELLO_PROMPT;
    const over = await chat(gatewayUrl, 'leaves', { model: 'fake', stream: false, max_tokens: left + 1 });
    t.equal(over.status, 429, 'one token more than the window has left is refused');
    t.match(await over.json(), { error: { code: 'tokens_limit_exceeded' } });
    // Settlement runs after the response ended; a refused request takes nothing from the window.
    const fits = await waitFor('the rate-limit reservation settled', async () => {
      const r = await chat(gatewayUrl, 'leaves', { model: 'fake', stream: false, max_tokens: left });
      await r.arrayBuffer();
      return r.status === 200 && r;
    });
    t.equal(fits.status, 200, 'the window has exactly what the real usage left');
  });

  t.test('a stream that breaks upstream: the events before the break as sent, then the in-band error', async (t) => {
    raw.cutAfter = 2;
    t.teardown(() => {
      raw.cutAfter = undefined;
    });
    const res = await chat(gatewayUrl, 'cut', { model: 'raw', stream_options: { include_usage: true } });
    t.equal(res.status, 200);
    const text = await res.text();
    const before = sse(FRAMES.slice(0, 2));
    t.equal(text.slice(0, before.length), before, 'the events before the break, byte for byte');
    const [errorEvent, done, ...rest] = text.slice(before.length).split('\n\n');
    t.same(rest, [''], 'the error event and [DONE] end the stream');
    t.equal(`${done}\n\n`, DONE);
    const { error } = JSON.parse(errorEvent.slice('data: '.length));
    t.match(error, { type: 'server_error', param: null, code: 'upstream_stream_error' });
    t.match(error.message, /^stream interrupted: /);
    t.match(await traceOf(db, res), { status: 'error', errorCode: 'upstream_stream_error' });

    const stream = await sdkStream(gatewayUrl, 'cut', false);
    const seen: string[] = [];
    const err = await (async () => {
      try {
        for await (const chunk of stream) seen.push(chunk.choices[0]?.delta?.content ?? '');
      } catch (e) {
        return e as InstanceType<typeof OpenAI.APIError>;
      }
    })();
    t.same(seen, ['', 'Caf\u00e9 au lait / 1.50'], 'the SDK read the chunks before the break');
    t.ok(err instanceof OpenAI.APIError, 'then an APIError');
    t.equal(err?.code, 'upstream_stream_error');
  });
});

t.test('a plugin that edits events gets its edits through', async (t) => {
  const raw = await rawUpstream(t, FRAMES);
  const fake = await startFakeOpenAI();
  t.teardown(() => fake.close());
  const dir = mkdtempSync(join(tmpdir(), 'svc-edit-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const shout = join(dir, 'shout.mjs');
  writeFileSync(
    shout,
    `export default { apiVersion: 1, name: 'shout', setup() { return {
  onEvent(ctx, chunk) {
    const d = chunk.choices?.[0]?.delta;
    if (typeof d?.content === 'string') d.content = d.content.toUpperCase();
  },
}; } };\n`,
  );
  const { gatewayUrl, service } = await startTestService(t, governedConfig(raw.url, fake.url, [{ use: shout }]));

  const stream = await sdkStream(gatewayUrl, 'edits', true);
  let content = '';
  let usage: unknown;
  for await (const chunk of stream) {
    content += chunk.choices[0]?.delta?.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  t.equal(content, ANSWER.toUpperCase(), 'the SDK read the edited content');
  t.match(usage, { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });

  const res = await chat(gatewayUrl, 'edits', { model: 'raw', stream_options: { include_usage: true } });
  const text = await res.text();
  t.notOk(text.includes('\\u00e9'), 'edited chunks are serialised again, not passed through');
  t.ok(text.includes('CAF\u00c9 AU LAIT / 1.50'));
  t.equal(await settled(service.db, 'edits', 2), 2 * 12 * 1e6, 'usage settles as ever');
});
