// The client's HTTP behaviour against a real local HTTP server scripted per request: retries with backoff on 429,
// 5xx and broken connections, `retry-after` honoured (seconds and HTTP date), no retry on 4xx, timeouts, and typed
// errors carrying the status and the server's message.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import t, { type Test } from 'tap';
import { listenLocally } from '../../../test/helpers/local-server.ts';
import { SvcApiError, SvcClient, SvcConnectionError, SvcTimeoutError } from '../src/index.ts';

type Step = (req: IncomingMessage, res: ServerResponse) => void;
interface Seen {
  at: number;
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

/** A server answering its n-th request with steps[n] (the last step repeats); records every request. */
async function scripted(t: Test, steps: Step[]) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ at: Date.now(), method: req.method!, url: req.url!, authorization: req.headers.authorization, body });
      steps[Math.min(seen.length - 1, steps.length - 1)](req, res);
    });
  });
  const local = await listenLocally(server);
  t.teardown(() => local.close());
  return { url: local.url, seen };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const prompt = {
  name: 'p',
  version: 3,
  type: 'text',
  prompt: 'Hi {{name}}',
  config: {},
  labels: ['production'],
  tags: [],
  commitMessage: null,
};
const client = (baseUrl: string, extra: Record<string, unknown> = {}) =>
  new SvcClient({ publicKey: 'pk-test', secretKey: 'sk-test', baseUrl, ...extra });

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

t.test('429 with retry-after: 1, then 200: waits the second the server asked for, then succeeds', async (t) => {
  const server = await scripted(t, [
    json(429, { message: 'Rate limit exceeded', error: 'TooManyRequests' }, { 'retry-after': '1' }),
    json(200, prompt),
  ]);
  const got = await client(server.url).prompts.get('p', { version: 3 });
  t.equal(got.version, 3);
  t.equal(server.seen.length, 2);
  t.ok(server.seen[1].at - server.seen[0].at >= 950, 'the retry came after the retry-after delay');
  t.equal(server.seen[0].url, '/api/public/v2/prompts/p?version=3');
  t.equal(server.seen[0].authorization, `Basic ${Buffer.from('pk-test:sk-test').toString('base64')}`);
});

t.test('retry-after as an HTTP date is honoured too', async (t) => {
  const server = await scripted(t, [
    (req, res) =>
      json(503, { message: 'busy' }, { 'retry-after': new Date(Date.now() + 2000).toUTCString() })(req, res),
    json(200, { data: [] }),
  ]);
  await client(server.url).authCheck();
  t.equal(server.seen.length, 2);
  t.ok(server.seen[1].at - server.seen[0].at >= 900, 'waited for the date (second resolution)');
});

t.test('5xx twice, then 200: three attempts with the default two retries', async (t) => {
  const server = await scripted(t, [
    json(502, { message: 'bad gateway' }),
    json(500, { message: 'oops' }),
    json(200, { data: [] }),
  ]);
  t.equal(await client(server.url).authCheck(), true);
  t.equal(server.seen.length, 3);
});

t.test('retries exhausted: the last error, with status and server message', async (t) => {
  const server = await scripted(t, [json(503, { message: 'store unavailable', error: 'ServiceUnavailable' })]);
  const err = await failure(client(server.url, { maxRetries: 1 }).datasets.get('d'));
  t.ok(err instanceof SvcApiError);
  t.match(err, {
    status: 503,
    error: 'ServiceUnavailable',
    method: 'GET',
    path: '/api/public/v2/datasets/d',
    body: { message: 'store unavailable' },
  });
  t.equal(err.message, 'GET /api/public/v2/datasets/d: 503 store unavailable');
  t.equal(server.seen.length, 2);
});

t.test('4xx is not retried; validation issues are in the message', async (t) => {
  const server = await scripted(t, [
    json(400, { message: 'Invalid request data', error: [{ path: ['value'], message: 'must be a number' }] }),
  ]);
  const err = await failure(client(server.url).scores.create({ name: 'q', value: 'x', traceId: 't' }));
  t.match(err, {
    name: 'SvcApiError',
    status: 400,
    message: 'POST /api/public/scores: 400 Invalid request data: value: must be a number',
  });
  t.equal(server.seen.length, 1);
  t.same(JSON.parse(server.seen[0].body), { name: 'q', value: 'x', traceId: 't' });
});

t.test('a retry-after beyond a minute is not waited for', async (t) => {
  const server = await scripted(t, [json(429, { message: 'slow down' }, { 'retry-after': '3600' })]);
  const err = await failure(client(server.url).authCheck());
  t.match(err, { name: 'SvcApiError', status: 429 });
  t.equal(server.seen.length, 1);
});

t.test('a non-JSON error body is the message', async (t) => {
  const server = await scripted(t, [
    (_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>'),
  ]);
  const err = await failure(client(server.url, { maxRetries: 0 }).authCheck());
  t.match(err, { name: 'SvcApiError', status: 502, body: '<h1>Bad Gateway</h1>' });
  t.match(err.message, /502 <h1>Bad Gateway<\/h1>/);
});

t.test('a connection broken before the answer is retried', async (t) => {
  const server = await scripted(t, [(req) => req.socket.destroy(), json(200, { data: [] })]);
  t.equal(await client(server.url).authCheck(), true);
  t.equal(server.seen.length, 2);
});

t.test('connection failures on every attempt: SvcConnectionError', async (t) => {
  const server = await scripted(t, [(req) => req.socket.destroy()]);
  const err = await failure(client(server.url, { maxRetries: 2 }).authCheck());
  t.ok(err instanceof SvcConnectionError);
  t.notOk(err instanceof SvcTimeoutError);
  t.equal(server.seen.length, 3);
});

t.test('no answer within timeoutMs: SvcTimeoutError, not retried', async (t) => {
  const hung: ServerResponse[] = [];
  const server = await scripted(t, [(_req, res) => hung.push(res)]);
  t.teardown(() => hung.forEach((r) => r.destroy()));
  const err = await failure(client(server.url, { timeoutMs: 200, maxRetries: 2 }).authCheck());
  t.ok(err instanceof SvcTimeoutError);
  t.ok(err instanceof SvcConnectionError, 'a kind of connection error');
  t.match(err.message, /GET http:\/\/127\.0\.0\.1:\d+\/api\/public\/projects: no answer within 200 ms/);
  t.equal(server.seen.length, 1);
});

t.test('a server that accepts the connection and never answers: authCheck ends after SVC_TIMEOUT', async (t) => {
  const sockets: Socket[] = [];
  const silent = createNetServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  t.teardown(() => {
    sockets.forEach((socket) => socket.destroy());
    silent.close();
  });
  const saved = process.env.SVC_TIMEOUT;
  process.env.SVC_TIMEOUT = '0.3';
  t.teardown(() => {
    if (saved === undefined) delete process.env.SVC_TIMEOUT;
    else process.env.SVC_TIMEOUT = saved;
  });
  const err = await failure(client(url).authCheck());
  t.ok(err instanceof SvcTimeoutError);
  t.match(err.message, /no answer within 300 ms/);
  t.equal(sockets.length, 1, 'one connection: the timeout is not retried');
  process.env.SVC_TIMEOUT = 'soon';
  t.throws(() => client(url), { name: 'SvcConfigError', variable: 'SVC_TIMEOUT' });
  delete process.env.SVC_TIMEOUT;
  t.match((await failure(client(url, { timeoutMs: 100 }).authCheck())).message, /within 100 ms/);
});
