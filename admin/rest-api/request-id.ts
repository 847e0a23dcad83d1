// X-Request-ID of the REST API (docs/rest-api.md "Request and response headers"): the client's value is echoed when it
// is 1 to 200 visible ASCII characters (so it is safe in a header and a log line); otherwise the service makes one.
import { randomUUID } from 'node:crypto';

const VISIBLE_ASCII = /^[\x21-\x7e]{1,200}$/;

export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && VISIBLE_ASCII.test(header) ? header : randomUUID();
}
