// The one fake upstream the bench targets forward to: a node:http server answering POST .../chat/completions
// with an OpenAI chat completion, or (stream: true) an SSE stream of a few chunks and `data: [DONE]`; and
// POST .../messages the same answer in Anthropic's Messages format (for `--provider anthropic`).
// No artificial delay by default: every answer is written as soon as the request body has been read. With `delayMs`
// (the server process reads SVC_BENCH_UPSTREAM_DELAY_MS; `npm run bench -- --sustained` sets 20) each answer is
// written that many milliseconds after its request body was read, as a model endpoint answering in fixed time.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const COMPLETION = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'fake-model',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Hello! How can I help you today?', refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 24, completion_tokens: 9, total_tokens: 33, prompt_tokens_details: { cached_tokens: 0 } },
  system_fingerprint: 'fp_bench',
});
const COMPLETION_LENGTH = String(Buffer.byteLength(COMPLETION));

const chunk = (delta: Record<string, unknown>, finish: string | null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-bench-stream',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'fake-model',
    system_fingerprint: 'fp_bench',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  })}\n\n`;

/** The frames of one streamed answer: role, three content pieces, the finish chunk. */
const STREAM_FRAMES = [
  chunk({ role: 'assistant', content: '' }, null),
  chunk({ content: 'Hello!' }, null),
  chunk({ content: ' How can I' }, null),
  chunk({ content: ' help you today?' }, null),
  chunk({}, 'stop'),
];
/** Sent only when the request asked for `stream_options.include_usage`, as OpenAI does. */
const USAGE_FRAME = `data: ${JSON.stringify({
  id: 'chatcmpl-bench-stream',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'fake-model',
  system_fingerprint: 'fp_bench',
  choices: [],
  usage: { prompt_tokens: 24, completion_tokens: 9, total_tokens: 33 },
})}\n\n`;
const DONE_FRAME = 'data: [DONE]\n\n';

/** The same answer as Anthropic's Messages API gives it. */
const MESSAGE = JSON.stringify({
  id: 'msg_bench',
  type: 'message',
  role: 'assistant',
  model: 'claude-bench',
  content: [{ type: 'text', text: 'Hello! How can I help you today?' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 24, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
});
const MESSAGE_LENGTH = String(Buffer.byteLength(MESSAGE));
const event = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
/** Anthropic's event sequence for the same streamed answer. */
const MESSAGE_EVENTS = [
  event('message_start', {
    message: {
      id: 'msg_bench',
      type: 'message',
      role: 'assistant',
      model: 'claude-bench',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 24, output_tokens: 1 },
    },
  }),
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  event('ping', {}),
  ...['Hello!', ' How can I', ' help you today?'].map((text) =>
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
  ),
  event('content_block_stop', { index: 0 }),
  event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } }),
];
const MESSAGE_STOP = event('message_stop', {});

export interface FakeUpstream {
  /** Base URL an OpenAI client would use, ending in /v1. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Bodies above this many bytes are not parsed (see requestFlags). */
const PARSED_BODY_BYTES = 64 * 1024;

/**
 * The two fields the answer depends on. A large body (the bench's 4 MiB prompts) is searched for them as the gateway
 * writes them (compact JSON) instead of parsed: a model endpoint's own parsing time is not the gateway's, and parsing
 * 4 MiB on the upstream's core would delay the small requests it answers meanwhile, on every row alike.
 */
function requestFlags(raw: Buffer): { stream?: unknown; stream_options?: { include_usage?: unknown } | null } {
  if (raw.length <= PARSED_BODY_BYTES) return JSON.parse(raw.toString('utf8'));
  return raw.includes('"stream":true')
    ? { stream: true, stream_options: { include_usage: raw.includes('"include_usage":true') } }
    : {};
}

export async function startFakeUpstream(port = 0, delayMs = 0): Promise<FakeUpstream> {
  const server = createServer({ keepAlive: true }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => (delayMs > 0 ? setTimeout(answer, delayMs) : answer()));
    const answer = () => {
      const anthropic = req.url?.endsWith('/messages') === true;
      if (req.method !== 'POST' || !(anthropic || req.url?.endsWith('/chat/completions'))) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"not found","type":"invalid_request_error","param":null,"code":null}}');
        return;
      }
      let body: { stream?: unknown; stream_options?: { include_usage?: unknown } | null };
      try {
        body = requestFlags(Buffer.concat(chunks));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"invalid json","type":"invalid_request_error","param":null,"code":null}}');
        return;
      }
      if (anthropic) {
        if (body.stream === true) {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          for (const frame of MESSAGE_EVENTS) res.write(frame);
          res.write(MESSAGE_STOP);
          res.end();
        } else {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': MESSAGE_LENGTH });
          res.end(MESSAGE);
        }
        return;
      }
      if (body.stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const frame of STREAM_FRAMES) res.write(frame);
        if (body.stream_options?.include_usage === true) res.write(USAGE_FRAME);
        // [DONE], then the end of the chunked body in a write of its own, as real servers send them.
        res.write(DONE_FRAME);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': COMPLETION_LENGTH });
      res.end(COMPLETION);
    };
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/v1`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
