// A fake AWS Bedrock runtime: a real node:http server that checks every request's SigV4 Authorization header
// with an independent verifier (or a Bedrock API key as Bearer), answers Converse with JSON and ConverseStream
// with real application/vnd.amazon.eventstream frames (CRCs from @smithy/eventstream-codec, frames split across
// writes), exception frames, a frame with a corrupted CRC, and HTTP errors with x-amzn-errortype.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { listenLocally } from './local-server.ts';
import { foldRawHeaders, verifySigV4, type SigV4Check } from './sigv4-verifier.ts';
import { sleep } from './wait-for.ts';

export interface StreamEventSpec {
  event: string;
  payload: Record<string, unknown>;
}
export interface StreamExceptionSpec {
  exception: string;
  message: string;
}
export type StreamFrameSpec = StreamEventSpec | StreamExceptionSpec;

export type BedrockBehaviour =
  /** A Converse JSON answer (defaults to a short text answer). */
  | { type: 'converse'; body?: Record<string, unknown> }
  | {
      type: 'stream';
      frames: StreamFrameSpec[];
      /** Flip a byte of this frame's message CRC. */
      corruptCrcAt?: number;
      /** Destroy the socket after this many frames. */
      cutAfter?: number;
    }
  | { type: 'error'; status: number; errorType: string; message: string; headers?: Record<string, string> };

export interface RecordedBedrockRequest {
  method: string;
  /** Path as on the wire (percent-encoding kept). */
  path: string;
  operation: 'converse' | 'converse-stream' | undefined;
  /** The model id, decoded. */
  modelId: string | undefined;
  headers: IncomingMessage['headers'];
  body: any;
  /** The SigV4 check, when the request was signed. */
  sigv4?: SigV4Check;
}

export interface FakeBedrockOptions {
  /** Access key id → secret the verifier accepts. */
  credentials?: Record<string, string>;
  /** Bedrock API keys accepted as `Authorization: Bearer`. */
  apiKeys?: string[];
  region?: string;
}

export interface FakeBedrock {
  url: string;
  requests: RecordedBedrockRequest[];
  queue: BedrockBehaviour[];
  fallback: BedrockBehaviour;
  close(): Promise<void>;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One event-stream frame as Bedrock sends it (with the `p` padding field on events). */
export function encodeFrame(spec: StreamFrameSpec): Uint8Array {
  const str = (value: string) => ({ type: 'string' as const, value });
  if ('exception' in spec) {
    return codec.encode({
      headers: {
        ':message-type': str('exception'),
        ':exception-type': str(spec.exception),
        ':content-type': str('application/json'),
      },
      body: fromUtf8(JSON.stringify({ message: spec.message })),
    });
  }
  return codec.encode({
    headers: {
      ':message-type': str('event'),
      ':event-type': str(spec.event),
      ':content-type': str('application/json'),
    },
    body: fromUtf8(JSON.stringify({ ...spec.payload, p: 'abcdefghijklmnopqrstuvwxyzABCDEF' })),
  });
}

export function converseText(
  text: string,
  usage: Record<string, number> = { inputTokens: 12, outputTokens: 5, totalTokens: 17 },
  stopReason = 'end_turn',
) {
  return {
    output: { message: { role: 'assistant', content: [{ text }] } },
    stopReason,
    usage,
    metrics: { latencyMs: 42 },
  };
}

/** The usual ConverseStream event sequence for a text answer, usage in `metadata` after `messageStop`. */
export function textStream(
  pieces: string[],
  usage: Record<string, number> = { inputTokens: 12, outputTokens: 5, totalTokens: 17 },
  stopReason = 'end_turn',
): StreamEventSpec[] {
  return [
    { event: 'messageStart', payload: { role: 'assistant' } },
    ...pieces.map((text) => ({ event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text } } })),
    { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
    { event: 'messageStop', payload: { stopReason } },
    { event: 'metadata', payload: { usage, metrics: { latencyMs: 42 } } },
  ];
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of req) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

function sendError(
  res: ServerResponse,
  status: number,
  errorType: string,
  message: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-amzn-errortype': `${errorType}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': 'fake-error-request',
    ...headers,
  });
  res.end(JSON.stringify({ message }));
}

async function writeStream(res: ServerResponse, b: Extract<BedrockBehaviour, { type: 'stream' }>, socket: Socket) {
  res.writeHead(200, {
    'content-type': 'application/vnd.amazon.eventstream',
    'x-amzn-requestid': 'fake-stream-request',
  });
  for (let i = 0; i < b.frames.length; i++) {
    if (b.cutAfter !== undefined && i >= b.cutAfter) {
      socket.destroy();
      return;
    }
    const frame = Buffer.from(encodeFrame(b.frames[i]));
    if (b.corruptCrcAt === i) frame[frame.length - 1] ^= 0xff;
    // Split every frame across two writes so the decoder must reassemble it.
    const cut = Math.max(1, Math.floor(frame.length / 3));
    res.write(frame.subarray(0, cut));
    await sleep(1);
    res.write(frame.subarray(cut));
  }
  res.end();
}

export async function startFakeBedrock(
  fallback: BedrockBehaviour = { type: 'converse' },
  options: FakeBedrockOptions = {},
): Promise<FakeBedrock> {
  const credentials = options.credentials ?? { AKIDFAKEBEDROCK: 'fake-bedrock-secret' };
  const apiKeys = new Set(options.apiKeys ?? []);
  const region = options.region ?? 'us-east-1';
  const requests: RecordedBedrockRequest[] = [];
  const fake: FakeBedrock = { url: '', requests, queue: [], fallback, close: async () => {} };

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const path = req.url ?? '/';
    const m = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(path.split('?')[0]);
    let body: any;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      body = raw.toString('utf8');
    }
    const record: RecordedBedrockRequest = {
      method: req.method ?? '',
      path,
      operation: m?.[2] as RecordedBedrockRequest['operation'],
      modelId: m ? decodeURIComponent(m[1]) : undefined,
      headers: req.headers,
      body,
    };
    requests.push(record);
    const auth = req.headers.authorization ?? '';
    if (auth.startsWith('Bearer ')) {
      if (!apiKeys.has(auth.slice(7)))
        return sendError(
          res,
          403,
          'UnrecognizedClientException',
          'The security token included in the request is invalid.',
        );
    } else {
      record.sigv4 = verifySigV4(
        { method: record.method, target: path, headers: foldRawHeaders(req.rawHeaders), body: raw },
        (id) => credentials[id],
      );
      if (!record.sigv4.ok) {
        return sendError(
          res,
          403,
          'InvalidSignatureException',
          `The request signature we calculated does not match the signature you provided (${record.sigv4.reason}).`,
        );
      }
      if (record.sigv4.service !== 'bedrock' || record.sigv4.region !== region) {
        return sendError(
          res,
          403,
          'InvalidSignatureException',
          `Credential should be scoped to a valid region and service bedrock, not ${record.sigv4.region}/${record.sigv4.service}.`,
        );
      }
    }
    if (!m || req.method !== 'POST') return sendError(res, 404, 'UnknownOperationException', 'Unknown operation');
    const b = fake.queue.shift() ?? fake.fallback;
    if (b.type === 'error') return sendError(res, b.status, b.errorType, b.message, b.headers);
    if (m[2] === 'converse') {
      if (b.type !== 'converse')
        return sendError(res, 400, 'ValidationException', 'fake: a stream behaviour was queued for a Converse call');
      res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': 'fake-converse-request' });
      return res.end(JSON.stringify(b.body ?? converseText('Hello from Bedrock')));
    }
    const stream =
      b.type === 'stream' ? b : { type: 'stream' as const, frames: textStream(['Hello', ' from', ' Bedrock']) };
    await writeStream(res, stream, req.socket);
  });
  Object.assign(fake, await listenLocally(server));
  return fake;
}
