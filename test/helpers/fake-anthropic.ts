// A fake Anthropic Messages API: a real node:http server answering POST /v1/messages with recorded JSON bodies,
// SSE transcripts written frame by frame and split across writes, error envelopes (with retry-after), in-stream
// error events and resets. It records every request (headers and body) so tests assert the translated request.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenLocally } from './local-server.ts';
import { sleep } from './wait-for.ts';

const FIXTURES = new URL('../fixtures/anthropic/', import.meta.url);

/** A fixture under test/fixtures/anthropic/ as text. */
export function anthropicFixtureText(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

export function anthropicFixture<T = any>(name: string): T {
  return JSON.parse(anthropicFixtureText(name)) as T;
}

/** An SSE transcript split into its frames (each ends with a blank line). */
export function sseFrames(transcript: string): string[] {
  return transcript
    .split(/\n\n/)
    .filter((f) => f.trim() !== '')
    .map((f) => `${f}\n\n`);
}

export interface RecordedAnthropicRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export type AnthropicBehaviour =
  /** Non-streamed: the JSON fixture (default text-response.json); streamed: the SSE fixture (default text-stream.sse). */
  | { type: 'ok'; json?: string; sse?: string }
  | { type: 'json'; body: unknown; status?: number }
  /** Streams an SSE fixture; `cutAfter` destroys the socket after that many frames. */
  | { type: 'sse'; fixture: string; cutAfter?: number; gapMs?: number }
  /** Streams these events (each an object whose `type` names it) as the SSE frames Anthropic writes. */
  | { type: 'events'; events: Array<{ type: string }> }
  /** An error envelope fixture (error-<status>.json unless `fixture` or `text` says otherwise). */
  | { type: 'error'; status: number; fixture?: string; text?: string; headers?: Record<string, string> }
  | { type: 'reset' }
  | { type: 'hang' };

export interface FakeAnthropic {
  url: string;
  requests: RecordedAnthropicRequest[];
  /** Behaviours used in order, one per request; when empty, `fallback` answers. */
  queue: AnthropicBehaviour[];
  fallback: AnthropicBehaviour;
  close(): Promise<void>;
}

async function writeSse(
  res: ServerResponse,
  req: IncomingMessage,
  frames: string[],
  cutAfter?: number,
  gapMs = 0,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'request-id': 'req_fake_stream',
  });
  for (let i = 0; i < frames.length; i++) {
    if (cutAfter !== undefined && i === cutAfter) {
      // Let the frames written so far reach the gateway; then the connection drops mid-stream.
      await sleep(20);
      req.socket.destroy();
      return;
    }
    // Split every frame mid-way (inside the JSON) so the gateway's SSE decoder must reassemble it.
    const cut = Math.max(1, Math.floor(frames[i].length * 0.6));
    res.write(frames[i].slice(0, cut));
    await sleep(1);
    res.write(frames[i].slice(cut));
    if (gapMs) await sleep(gapMs);
  }
  res.end();
}

async function play(b: AnthropicBehaviour, req: IncomingMessage, body: any, res: ServerResponse): Promise<void> {
  switch (b.type) {
    case 'hang':
      return;
    case 'reset':
      req.socket.destroy();
      return;
    case 'json':
      res.writeHead(b.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(b.body));
      return;
    case 'error': {
      const text = b.text ?? anthropicFixtureText(b.fixture ?? `error-${b.status}.json`);
      res.writeHead(b.status, {
        'content-type': b.text ? 'text/plain' : 'application/json',
        'request-id': 'req_fake_error',
        ...b.headers,
      });
      res.end(text);
      return;
    }
    case 'sse':
      return writeSse(res, req, sseFrames(anthropicFixtureText(b.fixture)), b.cutAfter, b.gapMs);
    case 'events':
      return writeSse(
        res,
        req,
        b.events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`),
      );
    case 'ok':
      if (body?.stream === true) return writeSse(res, req, sseFrames(anthropicFixtureText(b.sse ?? 'text-stream.sse')));
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_fake_json' });
      res.end(anthropicFixtureText(b.json ?? 'text-response.json'));
      return;
  }
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function startFakeAnthropic(fallback: AnthropicBehaviour = { type: 'ok' }): Promise<FakeAnthropic> {
  const fake: FakeAnthropic = { url: '', requests: [], queue: [], fallback, close: async () => {} };
  const server: Server = createServer(async (req, res) => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const raw = Buffer.concat(parts).toString('utf8');
    const body = raw === '' ? undefined : tryJson(raw);
    fake.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    if (req.method !== 'POST' || req.url !== '/v1/messages') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `Not found: ${req.url}` } }));
      return;
    }
    await play(fake.queue.shift() ?? fake.fallback, req, body, res).catch(() => req.socket.destroy());
  });
  const listening = await listenLocally(server);
  fake.url = listening.url;
  fake.close = listening.close;
  return fake;
}
