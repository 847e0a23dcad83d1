// The open-loop client of `npm run bench -- --sustained` (bench/open-loop.ts) against the bench's fake upstream with
// its answer delay: every scheduled request is sent, latency counts from the scheduled time (so never below the
// upstream's delay), a server that never answers gives timeouts rather than a hang, and the ramp's rates
// (bench/sustained.ts) end at --max-rate. The scenarios' pure parts (bench/sustained-scenarios.ts): the 4 MiB prompt
// fits the gateway's default body limit and the fake upstream answers it, and the p99 comparison, the extra CPU per
// flood request and the outcome summary. No timing beyond the delay is asserted.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startFakeUpstream } from '../../bench/fake-upstream.ts';
import { JSON_BODY, PATH } from '../../bench/measure.ts';
import { OpenLoop } from '../../bench/open-loop.ts';
import { rampRates } from '../../bench/sustained.ts';
import {
  DEFAULT_MAX_BODY_BYTES,
  extraCpuPerRequest,
  LARGE_PROMPT_BYTES,
  largeChatBody,
  outcomes,
  p99Change,
} from '../../bench/sustained-scenarios.ts';

t.test('every request sent on schedule, timed from its scheduled time', async (t) => {
  const upstream = await startFakeUpstream(0, 20);
  t.teardown(() => upstream.close());
  const loop = new OpenLoop(
    { url: new URL(upstream.url).origin, path: PATH, headers: { 'content-type': 'application/json' } },
    JSON_BODY,
  );
  const r = await loop.step({ rate: 200, seconds: 0.5, timeoutMs: 5000 });
  await loop.close();
  t.equal(r.sent, 100);
  t.equal(r.ok, 100);
  t.equal(r.non2xx + r.failed + r.timeouts, 0);
  t.equal(r.latency.length, 100);
  // libuv runs timers on a millisecond clock cached per loop turn, so the upstream's 20 ms timer can fire up to 1 ms
  // early by performance.now(); anything sooner would be an answer that skipped the delay.
  t.ok(Math.min(...r.latency) >= 19, `no answer sooner than the upstream delay (${Math.min(...r.latency)} ms)`);
});

t.test('non-2xx answers and unanswered requests are errors, and the step still ends', async (t) => {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    if (n++ % 2 === 0) res.writeHead(500).end();
    // the others are never answered
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  const loop = new OpenLoop({ url: `http://127.0.0.1:${port}`, path: PATH, headers: {} }, JSON_BODY);
  const r = await loop.step({ rate: 100, seconds: 0.2, timeoutMs: 200 });
  await loop.close();
  t.equal(r.sent, 20);
  t.equal(r.ok, 0);
  t.equal(r.non2xx, 10);
  t.equal(r.timeouts, 10);
  t.same(r.statuses, { 500: 10 }, 'answers counted by status; timeouts not among them');
});

t.test('the ramp: ×1.25 from the start rate, --max-rate as the last step', async (t) => {
  t.same(rampRates(200, 400), [200, 250, 313, 391, 400]);
  t.same(rampRates(200, 200), [200]);
});

t.test('the large prompt: one user message of 4 MiB of text, under the default body limit, answered 200', async (t) => {
  const body = largeChatBody(LARGE_PROMPT_BYTES);
  t.ok(body.length > LARGE_PROMPT_BYTES && body.length <= DEFAULT_MAX_BODY_BYTES, `${body.length} bytes`);
  const parsed = JSON.parse(body.toString('utf8')) as { model: string; messages: { role: string; content: string }[] };
  t.equal(parsed.messages.length, 1);
  t.equal(parsed.messages[0].role, 'user');
  t.equal(parsed.messages[0].content.length, LARGE_PROMPT_BYTES);
  t.notMatch(parsed.messages[0].content, /\d/, 'no digits for a card-number detector to find');
  const upstream = await startFakeUpstream(0, 20);
  t.teardown(() => upstream.close());
  const loop = new OpenLoop(
    { url: new URL(upstream.url).origin, path: PATH, headers: { 'content-type': 'application/json' } },
    body,
  );
  const r = await loop.step({ rate: 10, seconds: 0.2, timeoutMs: 5000 });
  await loop.close();
  t.same(r.statuses, { 200: 2 });
});

t.test('the scenarios: p99 change against the target, extra CPU per request, outcomes', async (t) => {
  t.same(p99Change({ p99: 21.5 }, { p99: 22.4 }, 1).met, true);
  t.same(p99Change({ p99: 21.5 }, { p99: 22.6 }, 1).met, false);
  t.ok(Math.abs(p99Change({ p99: 21.5 }, { p99: 22.6 }, 1).change - 1.1) < 1e-9);
  t.equal(p99Change({ p99: Number.NaN }, { p99: 22 }, 1).met, false, 'no sample: not met');
  // 1 s alone used 100 ms of CPU; 2 s with 1,000 flood requests used 400 ms: 200 µs of it were the flood's each.
  t.equal(extraCpuPerRequest(100_000, 1, 400_000, 2, 1000), 200);
  t.ok(Number.isNaN(extraCpuPerRequest(1, 1, 2, 1, 0)));
  t.equal(outcomes({ statuses: { 200: 2, 401: 19_990 }, failed: 3, timeouts: 0 }), '401 x 19,990, 200 x 2, 3 failed');
  t.equal(outcomes({ statuses: {}, failed: 0, timeouts: 0 }), 'none');
});
