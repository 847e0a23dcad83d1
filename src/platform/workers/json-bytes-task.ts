// The worker-thread task that serialises a large provider payload: JSON.stringify walks every character of every
// string to escape it, about 3 ms a MB on the thread that serves, where handing the value over costs a fraction of
// that (src/gateway/providers/payload-bytes.ts). The bytes come back moved, not copied.
import { move } from 'piscina';

export function jsonBytes(value: unknown): Uint8Array {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  return move(bytes) as Uint8Array;
}
