// application/vnd.amazon.eventstream → messages. Frames are split by their prelude length and decoded by
// @smithy/eventstream-codec, which checks both CRC32s; any framing fault ends the stream with a throw.
import { crc32 } from 'node:zlib';
import type { EventStreamCodec } from '@smithy/eventstream-codec';
import { UpstreamError } from '../../../plugin-api/errors.ts';
import { streamException } from './error-mapping.ts';

export interface StreamEvent {
  /** `:event-type`, e.g. messageStart, contentBlockDelta, metadata. */
  type: string;
  payload: Record<string, unknown>;
}

const PRELUDE = 12;
const MIN_FRAME = 16;
// AWS caps an event-stream message at 16 MiB; a larger prelude length means the stream is corrupt.
const MAX_FRAME = 16 * 1024 * 1024;

/** The codec, loaded with the first Bedrock stream: a service that streams none never holds its modules. */
let codecLoad: Promise<{ codec: EventStreamCodec; toUtf8: (bytes: Uint8Array) => string }> | undefined;
function eventCodec(): NonNullable<typeof codecLoad> {
  return (codecLoad ??= Promise.all([import('@smithy/eventstream-codec'), import('@smithy/util-utf8')]).then(
    ([{ EventStreamCodec }, { fromUtf8, toUtf8 }]) => ({ codec: new EventStreamCodec(toUtf8, fromUtf8), toUtf8 }),
  ));
}

function corrupt(message: string, cause?: unknown): UpstreamError {
  return new UpstreamError(
    'invalid_response',
    `Bedrock event stream is corrupt: ${message}`,
    cause === undefined ? {} : { cause },
  );
}

/** Whole frames as they complete; checks the prelude CRC before waiting for a length it announces. */
export async function* eventStreamFrames(body: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let pending: Buffer = Buffer.alloc(0);
  for await (const piece of body) {
    pending = pending.length === 0 ? Buffer.from(piece) : Buffer.concat([pending, piece]);
    while (pending.length >= PRELUDE) {
      const total = pending.readUInt32BE(0);
      if (crc32(pending.subarray(0, 8)) !== pending.readUInt32BE(8)) throw corrupt('prelude CRC32 mismatch');
      if (total < MIN_FRAME || total > MAX_FRAME) throw corrupt(`frame length ${total} out of range`);
      if (pending.length < total) break;
      yield pending.subarray(0, total);
      pending = pending.subarray(total);
    }
  }
  if (pending.length > 0) throw new UpstreamError('connect', 'Bedrock closed the stream inside an event-stream frame');
}

function headerString(headers: Record<string, { type: string; value: unknown }>, name: string): string | undefined {
  const h = headers[name];
  return h && h.type === 'string' ? String(h.value) : undefined;
}

/** Decoded events; exception and error frames throw the mapped UpstreamError. */
export async function* eventStreamEvents(body: AsyncIterable<Uint8Array>): AsyncGenerator<StreamEvent> {
  const { codec, toUtf8 } = await eventCodec();
  for await (const frame of eventStreamFrames(body)) {
    let message;
    try {
      message = codec.decode(frame);
    } catch (err) {
      throw corrupt((err as Error).message, err);
    }
    const text = toUtf8(message.body);
    const kind = headerString(message.headers, ':message-type') ?? 'event';
    if (kind === 'exception')
      throw streamException(headerString(message.headers, ':exception-type') ?? 'unknownException', text);
    if (kind === 'error') {
      throw streamException(
        headerString(message.headers, ':error-code') ?? 'unknownError',
        JSON.stringify({ message: headerString(message.headers, ':error-message') ?? text }),
      );
    }
    let payload: unknown;
    try {
      payload = text === '' ? {} : JSON.parse(text);
    } catch (err) {
      throw corrupt('an event payload is not JSON', err);
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
      throw corrupt('an event payload is not a JSON object');
    yield { type: headerString(message.headers, ':event-type') ?? '', payload: payload as Record<string, unknown> };
  }
}
