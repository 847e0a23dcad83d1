// Request ids, which are also trace ids: time-ordered UUIDs (RFC 9562 version 7), so that ids arriving in order keep
// the trace tables' primary-key inserts at the end of their index instead of scattered over it (random ids made each
// embedded-store insert dearer as the store grew).
import { randomUUID } from 'node:crypto';

/**
 * A UUIDv7: the Unix time in milliseconds in the first 48 bits, then the version, and the random bits and variant of a
 * `randomUUID()`. Built on Node's pooled v4 generator: the `uuid` package's v7 draws fresh random bytes per call and
 * costs about 3 µs, 30 times as much, on every request.
 */
export function timeOrderedUuid(now = Date.now()): string {
  if (now !== prefixMs) {
    const time = now.toString(16).padStart(12, '0');
    prefix = `${time.slice(0, 8)}-${time.slice(8)}-7`;
    prefixMs = now;
  }
  // randomUUID(): xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx; from index 15 on: random, variant, random.
  return prefix + randomUUID().slice(15);
}

// The time part of the last millisecond asked for: requests of one millisecond share it.
let prefixMs = -1;
let prefix = '';
