// The open-loop client of `npm run bench -- --sustained` (bench/open-loop.ts) against the bench's fake upstream with
// its answer delay: every scheduled request is sent, latency counts from the scheduled time (so never below the
// upstream's delay), a server that never answers gives timeouts rather than a hang, and the ramp's rates
// (bench/sustained.ts) end at --max-rate. No timing beyond the delay is asserted.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startFakeUpstream } from '../../bench/fake-upstream.ts';
import { JSON_BODY, PATH } from '../../bench/measure.ts';
import { OpenLoop } from '../../bench/open-loop.ts';
import { rampRates } from '../../bench/sustained.ts';

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
  t.ok(Math.min(...r.latency) >= 20, 'no answer sooner than the upstream delay');
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
});

t.test('the ramp: ×1.25 from the start rate, --max-rate as the last step', async (t) => {
  t.same(rampRates(200, 400), [200, 250, 313, 391, 400]);
  t.same(rampRates(200, 200), [200]);
});
