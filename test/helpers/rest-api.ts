// Calls to the versioned REST API ({adminUrl}/v1) and checks of what every one of its answers carries.
import type { Test } from 'tap';
import type { CreatedApiKey } from '../../src/platform/store/repos/api-keys.ts';

export interface RestResponse {
  status: number;
  headers: Headers;
  body: any;
}

export interface CallOptions {
  /** The whole Authorization header value. */
  auth?: string;
  /** Sent as JSON with Content-Type application/json. */
  json?: unknown;
  /** Sent as is, with `contentType` when given. */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export const bearer = (k: Pick<CreatedApiKey, 'secretKey'>) => `Bearer ${k.secretKey}`;
export const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

export async function call(adminUrl: string, method: string, path: string, o: CallOptions = {}): Promise<RestResponse> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.auth !== undefined) headers.authorization = o.auth;
  let body: string | undefined;
  if (o.json !== undefined) {
    body = JSON.stringify(o.json);
    headers['content-type'] = 'application/json';
  } else if (o.raw !== undefined) {
    body = o.raw;
    if (o.contentType) headers['content-type'] = o.contentType;
  }
  const res = await fetch(`${adminUrl}/v1${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // left as text: the assertions on it will say what came back
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

const INTEGER = /^\d+$/;

/** Content-Type, X-Request-ID and the three rate-limit headers (docs/rest-api.md, Request and response headers), on any
 * answer. */
export function checkCommonHeaders(t: Test, r: RestResponse, label = ''): void {
  t.match(r.headers.get('content-type'), /^application\/json/, `${label} content-type is JSON`);
  t.ok(r.headers.get('x-request-id'), `${label} has x-request-id`);
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    t.match(r.headers.get(h), INTEGER, `${label} ${h} is an integer`);
  }
  t.ok(
    Number(r.headers.get('x-ratelimit-remaining')) <= Number(r.headers.get('x-ratelimit-limit')),
    `${label} remaining <= limit`,
  );
}

/** An answer in the REST API's error envelope (docs/rest-api.md, Errors) with this status and code (and message, and
 * details when given). */
export function checkError(
  t: Test,
  r: RestResponse,
  status: number,
  code: string,
  expect: { message?: string | RegExp; details?: Record<string, unknown> } = {},
): void {
  const label = `${status} ${code}${expect.message ? ` (${String(expect.message)})` : ''}`;
  t.equal(r.status, status, `${label}: status`);
  t.equal(r.body?.error?.code, code, `${label}: code`);
  t.type(r.body?.error?.message, 'string', `${label}: message is a string`);
  t.type(r.body?.error?.details, 'object', `${label}: details is an object`);
  t.same(Object.keys(r.body ?? {}), ['error'], `${label}: only the error object`);
  if (typeof expect.message === 'string') t.equal(r.body?.error?.message, expect.message, `${label}: message`);
  else if (expect.message) t.match(r.body?.error?.message, expect.message, `${label}: message`);
  if (expect.details) t.match(r.body?.error?.details, expect.details, `${label}: details`);
  checkCommonHeaders(t, r, label);
}
