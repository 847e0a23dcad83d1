// A fake OpenAI-wire upstream: a real node:http server writing real JSON, SSE frames split across writes,
// error envelopes, resets and hangs. Tests script what each request gets.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { sleep } from './wait-for.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export type Behaviour =
  | {
      type: 'ok';
      content?: string;
      usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
    }
  | { type: 'json'; status?: number; body: unknown; headers?: Record<string, string> }
  | { type: 'error'; status: number; envelope?: unknown; text?: string; headers?: Record<string, string> }
  | { type: 'invalid-json'; text?: string }
  | { type: 'reset' }
  | { type: 'hang' }
  | { type: 'delay'; ms: number; then: Behaviour }
  | {
      type: 'stream';
      /** Content pieces, one chunk each. */
      pieces?: string[];
      /** Destroy the socket after this many chunks were written. */
      cutAfter?: number;
      /** Send an in-stream `{ error }` event after this many chunks. */
      errorAfter?: number;
      /** Skip the final usage chunk even when asked. */
      noUsage?: boolean;
      /** The usage chunk's `usage` (OpenAI's whole object, details included); else 12 prompt tokens, one per piece. */
      usage?: Record<string, unknown>;
      /** Pause between chunks. */
      gapMs?: number;
      /** Usage on every chunk, counting this many prompt tokens and the pieces so far (vLLM's continuous usage). */
      promptTokensEachChunk?: number;
    };

export interface FakeOpenAI {
  url: string;
  requests: RecordedRequest[];
  /** Behaviours used in order, one per request; when empty, `fallback` answers. */
  queue: Behaviour[];
  fallback: Behaviour;
  close(): Promise<void>;
}

export function chatCompletion(content: string, usage = { prompt_tokens: 10, completion_tokens: 5 }, cached = 0) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'fake-model',
    choices: [
      { index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' },
    ],
    usage: {
      ...usage,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
      prompt_tokens_details: { cached_tokens: cached },
    },
  };
}

function chunk(delta: Record<string, unknown>, finish: string | null, withUsageNull: boolean) {
  return {
    id: 'chatcmpl-fake-stream',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'fake-model',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(withUsageNull ? { usage: null } : {}),
  };
}

async function writeFrame(res: ServerResponse, data: string): Promise<void> {
  // Split every frame across two writes so the gateway's SSE decoder must reassemble it.
  const frame = `data: ${data}\n\n`;
  const cut = Math.max(1, Math.floor(frame.length / 2));
  res.write(frame.slice(0, cut));
  await sleep(1);
  res.write(frame.slice(cut));
}

async function play(
  b: Behaviour,
  req: IncomingMessage,
  body: any,
  res: ServerResponse,
  sockets: Set<Socket>,
): Promise<void> {
  switch (b.type) {
    case 'delay':
      await sleep(b.ms);
      return play(b.then, req, body, res, sockets);
    case 'hang':
      return;
    case 'reset':
      req.socket.destroy();
      return;
    case 'invalid-json':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(b.text ?? '<html>not json</html>');
      return;
    case 'error': {
      const text =
        b.text ??
        JSON.stringify(
          b.envelope ?? { error: { message: `fake error ${b.status}`, type: 'server_error', param: null, code: null } },
        );
      res.writeHead(b.status, { 'content-type': b.text ? 'text/plain' : 'application/json', ...b.headers });
      res.end(text);
      return;
    }
    case 'json':
      res.writeHead(b.status ?? 200, { 'content-type': 'application/json', ...b.headers });
      res.end(JSON.stringify(b.body));
      return;
    case 'ok': {
      if (body?.stream)
        return play(
          { type: 'stream', pieces: (b.content ?? 'Hello from fake').split(/(?<= )/) },
          req,
          body,
          res,
          sockets,
        );
      const usage = b.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
      res.writeHead(200, { 'content-type': 'application/json' });
      if (Array.isArray(body?.input) || typeof body?.input === 'string') {
        const inputs = Array.isArray(body.input) ? body.input : [body.input];
        res.end(
          JSON.stringify({
            object: 'list',
            data: inputs.map((_: unknown, index: number) => ({
              object: 'embedding',
              index,
              embedding:
                body.encoding_format === 'base64'
                  ? Buffer.from(new Float32Array([0.5, -0.25, 0.125]).buffer).toString('base64')
                  : [0.5, -0.25, 0.125],
            })),
            model: 'fake-embed',
            usage: { prompt_tokens: usage.prompt_tokens, total_tokens: usage.prompt_tokens },
          }),
        );
        return;
      }
      res.end(JSON.stringify(chatCompletion(b.content ?? 'Hello from fake', usage, b.usage?.cached_tokens ?? 0)));
      return;
    }
    case 'stream': {
      const includeUsage = body?.stream_options?.include_usage === true;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const pieces = b.pieces ?? ['Hello', ' from', ' fake'];
      const frames: Record<string, unknown>[] = [
        chunk({ role: 'assistant', content: '' }, null, includeUsage),
        ...pieces.map((p) => chunk({ content: p }, null, includeUsage)),
        chunk({}, 'stop', includeUsage),
      ];
      const prompt = b.promptTokensEachChunk;
      if (prompt !== undefined)
        frames.forEach((f, i) => {
          const completion = Math.min(i, pieces.length);
          f.usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
        });
      for (let i = 0; i < frames.length; i++) {
        if (b.cutAfter !== undefined && i === b.cutAfter) {
          req.socket.destroy();
          return;
        }
        if (b.errorAfter !== undefined && i === b.errorAfter) {
          await writeFrame(
            res,
            JSON.stringify({ error: { message: 'overloaded', type: 'server_error', param: null, code: null } }),
          );
          res.end();
          return;
        }
        await writeFrame(res, JSON.stringify(frames[i]));
        if (b.gapMs) await sleep(b.gapMs);
      }
      if (includeUsage && !b.noUsage) {
        await writeFrame(
          res,
          JSON.stringify({
            id: 'chatcmpl-fake-stream',
            object: 'chat.completion.chunk',
            created: 1_700_000_000,
            model: 'fake-model',
            choices: [],
            usage: b.usage ?? { prompt_tokens: 12, completion_tokens: pieces.length, total_tokens: 12 + pieces.length },
          }),
        );
      }
      await writeFrame(res, '[DONE]');
      res.end();
      return;
    }
  }
}

export async function startFakeOpenAI(fallback: Behaviour = { type: 'ok' }): Promise<FakeOpenAI> {
  const sockets = new Set<Socket>();
  const fake: FakeOpenAI = { url: '', requests: [], queue: [], fallback, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        body = undefined;
      }
      fake.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const behaviour = fake.queue.shift() ?? fake.fallback;
      play(behaviour, req, body, res, sockets).catch(() => req.socket.destroy());
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return fake;
}
