// A provider payload as the bytes to POST. Made from a large client body (a long prompt, many turns), its
// serialisation runs on the worker pool so the thread that serves other requests is not held for milliseconds.
import type { JsonObject } from '../../platform/openai/wire-types.ts';
import type { ProviderCall } from '../../plugin-api/services.ts';
import type { ProviderServices } from './types.ts';

/**
 * From this client body size up the payload is serialised on a worker thread. Measured on the serving thread (Node
 * 24, 2 vCPUs; chat bodies of 300-character turns): JSON.stringify with the UTF-8 copy takes 695 µs at 256 KiB and
 * 3.9 ms at 1 MiB, handing the value to a thread 403 µs and 1.2 ms (one 4 MiB string: 12.5 ms against 0.7 ms).
 * Below this size the gain is under 0.1 ms and the hop adds its own latency to the request.
 */
export const PAYLOAD_IN_WORKER_BYTES = 256 * 1024;

export function payloadBytes(
  services: ProviderServices,
  payload: JsonObject,
  call: Pick<ProviderCall, 'bodyBytes'>,
): string | Promise<Uint8Array> {
  return (call.bodyBytes ?? 0) >= PAYLOAD_IN_WORKER_BYTES
    ? services.workers.run('jsonBytes', payload)
    : JSON.stringify(payload);
}
