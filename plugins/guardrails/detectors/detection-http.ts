// One JSON POST to a detection service through the gateway's undici dispatcher, bounded in time and size.
import type { Dispatcher } from 'undici';

const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** The service gave no usable answer; `reason` is short and safe to record in a trace. */
export class DetectionUnavailable extends Error {
  readonly reason: string;
  constructor(reason: string, cause?: unknown) {
    super(`detection service unavailable: ${reason}`, cause === undefined ? undefined : { cause });
    this.name = 'DetectionUnavailable';
    this.reason = reason;
  }
}

function failure(err: unknown, signal: AbortSignal): DetectionUnavailable {
  if (err instanceof DetectionUnavailable) return err;
  return new DetectionUnavailable(signal.aborted ? 'timeout' : 'unreachable', err);
}

async function readJson(body: Dispatcher.ResponseData['body']): Promise<unknown> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > MAX_ANSWER_BYTES) throw new DetectionUnavailable('answer too large');
    parts.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch (err) {
    throw new DetectionUnavailable('invalid answer', err);
  }
}

export async function postDetection(
  dispatcher: Dispatcher,
  url: URL,
  payload: unknown,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<unknown> {
  // One deadline for connect, headers and body alike.
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const res = await dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: JSON.stringify(payload),
      signal,
    });
    if (res.statusCode < 200 || res.statusCode >= 300) {
      await res.body.dump();
      throw new DetectionUnavailable(`status ${res.statusCode}`);
    }
    return await readJson(res.body);
  } catch (err) {
    throw failure(err, signal);
  }
}
