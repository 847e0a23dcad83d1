// Requests Node's HTTP parser refuses before any handler runs — 64 KB of headers, a NUL, bare CR or bare LF in a header,
// a request line it cannot read — answered in each surface's documented envelope with a code (docs/api.md,
// docs/rest-api.md, docs/public-api.md, docs/dashboard.md; docs/decisions.md "Requests the HTTP parser refuses"),
// never Node's bare status line or Fastify's default body. Written on raw sockets: HTTP clients refuse to send these.
import t, { type Test } from 'tap';
import { rawHttp, rawRequest, type RawAnswer } from '../helpers/raw-http.ts';
import { baseConfig, startTestService, TEST_KEY } from '../helpers/service.ts';

const BIG = 'k'.repeat(64 * 1024);
const SECRET = 'sk-secret-value';

/** Header lines Node refuses, by what is wrong with them; none may be echoed back. */
const BAD_HEADERS: [string, string, number][] = [
  ['64 KB Authorization', `authorization: Bearer ${BIG}`, 431],
  ['NUL in Authorization', `authorization: Bearer ${SECRET}\u0000x`, 400],
  ['bare CR in Authorization', `authorization: Bearer ${SECRET}\rx`, 400],
  ['bare LF in Authorization', `authorization: Bearer ${SECRET}\nx`, 400],
];

const codeFor = (status: number) => (status === 431 ? 'header_too_large' : 'invalid_header');

function closesWithoutEcho(t: Test, a: RawAnswer, what: string) {
  t.equal(a.headers.connection, 'close', `${what}: connection: close`);
  t.equal(a.headers['content-type'], 'application/json', `${what}: JSON`);
  t.equal(Number(a.headers['content-length']), Buffer.byteLength(a.text), `${what}: content-length`);
  t.notMatch(a.text, /sk-secret-value|kkkkkkkk/, `${what}: the header value is not echoed`);
}

t.test('parser refusals in the envelope of every surface', async (t) => {
  const s = await startTestService(t, baseConfig());

  t.test('gateway: the OpenAI envelope with a code, and x-svc-request-id', async (t) => {
    for (const [what, line, status] of BAD_HEADERS) {
      const a = await rawRequest(s.gatewayUrl, rawHttp('POST', '/v1/chat/completions', [line], '{}'));
      t.equal(a.status, status, what);
      t.match(a.json, {
        error: {
          message: status === 431 ? /16 KB/ : /^Header authorization cannot be read/,
          type: 'invalid_request_error',
          param: null,
          code: codeFor(status),
        },
      });
      t.same(Object.keys(a.json).concat(Object.keys(a.json.error)), ['error', 'message', 'type', 'param', 'code']);
      t.match(a.headers['x-svc-request-id'], /^[0-9a-f-]{36}$/, `${what}: a request id`);
      closesWithoutEcho(t, a, what);
    }
    const apiKey = await rawRequest(s.gatewayUrl, rawHttp('GET', '/v1/models', [`api-key: ${TEST_KEY}\u0000`]));
    t.match(apiKey, { status: 400, json: { error: { code: 'invalid_header', message: /^Header api-key / } } });
    const line = await rawRequest(s.gatewayUrl, 'G@T /v1/models HTTP/1.1\r\nhost: svc\r\n\r\n');
    t.match(line, {
      status: 400,
      json: { error: { code: 'invalid_request', message: /cannot be read as HTTP\/1\.1/, param: null } },
    });
    const metrics = await (await fetch(`${s.adminUrl}/metrics`)).json();
    t.equal(metrics.refusals.by_code.header_too_large, 1, '/metrics counts the 431');
    t.equal(metrics.refusals.by_code.invalid_header, 4, '/metrics counts the 400s');
    const ok = await rawRequest(s.gatewayUrl, rawHttp('GET', '/v1/models', [`authorization: Bearer ${TEST_KEY}`]));
    t.equal(ok.status, 200, 'a well-formed request on the same listener is served');
  });

  t.test('REST API (/v1) and paths of no surface: {error: {code, message, details}} with x-request-id', async (t) => {
    for (const path of ['/v1/traces', '/health', '/nowhere']) {
      for (const [what, line, status] of BAD_HEADERS) {
        const a = await rawRequest(s.adminUrl, rawHttp('GET', path, [line]));
        t.equal(a.status, status, `${path} ${what}`);
        t.match(a.json, {
          error: { code: codeFor(status), message: String, details: { reason: codeFor(status) } },
        });
        t.same(Object.keys(a.json.error).sort(), ['code', 'details', 'message']);
        t.match(a.headers['x-request-id'], /^[0-9a-f-]{36}$/, `${path} ${what}: x-request-id`);
        closesWithoutEcho(t, a, `${path} ${what}`);
      }
    }
    const line = await rawRequest(s.adminUrl, 'GET /v1/traces HTTP/9.9\r\nhost: svc\r\n\r\n');
    t.match(line, {
      status: 400,
      json: { error: { code: 'invalid_request', details: { reason: 'invalid_request' } } },
    });
  });

  t.test('public API (/api/public): {message, error} with the error class', async (t) => {
    for (const [what, line, status] of BAD_HEADERS) {
      const a = await rawRequest(s.adminUrl, rawHttp('GET', '/api/public/traces', [line]));
      t.equal(a.status, status, what);
      t.same(Object.keys(a.json).sort(), ['error', 'message']);
      t.match(a.json, {
        message: String,
        error: status === 431 ? 'RequestHeaderFieldsTooLargeError' : 'InvalidRequestError',
      });
      closesWithoutEcho(t, a, what);
    }
  });

  t.test('dashboard API (/dashboard/api): {error: {code, message}}', async (t) => {
    for (const [what, line, status] of BAD_HEADERS) {
      const a = await rawRequest(s.adminUrl, rawHttp('POST', '/dashboard/api/session', [line], '{}'));
      t.equal(a.status, status, what);
      t.same(Object.keys(a.json.error).sort(), ['code', 'message']);
      t.equal(a.json.error.code, codeFor(status), what);
      closesWithoutEcho(t, a, what);
    }
  });
});
