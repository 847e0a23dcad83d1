// The REST API's rate limit (docs/rest-api.md, Rate limiting): per API key, 1,000 requests per calendar minute with
// bursts of at most 100 unless gateway.yaml says otherwise. X-RateLimit-Limit is the per-minute limit, Remaining what
// is left of this minute, Reset the minute's end; refused requests get 429 rate_limit_exceeded with Retry-After. The
// service clock is frozen so that time moves only when the test moves it.
import t from 'tap';
import { stringify } from 'yaml';
import { parseConfig } from '../../src/platform/config/load-config.ts';
import type { Clock } from '../../src/platform/clock.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { bearer, call, checkCommonHeaders, checkError, type RestResponse } from '../helpers/rest-api.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';

/** A clock that stands still until the test moves it. */
function frozenClock(at: number): Clock & { advance(ms: number): void } {
  let now = at;
  return { now: () => now, sleep: systemClock.sleep, advance: (ms) => (now += ms) };
}

const header = (r: RestResponse, name: string) => Number(r.headers.get(name));
const T0 = Date.parse('2026-05-01T12:00:00.000Z');
const MINUTE_END = (T0 + 60_000) / 1000;

t.test(
  'X-RateLimit-Limit is the per-minute limit; Remaining and Reset describe the minute; bursts stop at 100',
  async (t) => {
    const clock = frozenClock(T0);
    const svc = await startTestService(t, baseConfig(), { clock });
    const key = await createApiKey(svc.service.db, {
      kind: 'project',
      organizationId: 'default',
      projectId: 'default',
      now: T0,
    });
    const other = await createApiKey(svc.service.db, {
      kind: 'project',
      organizationId: 'default',
      projectId: 'default',
      now: T0,
    });
    const get = (k = key, path = '/agents') => call(svc.adminUrl, 'GET', path, { auth: bearer(k) });

    const answers: RestResponse[] = [];
    for (let i = 0; i < 100; i++) answers.push(await get());
    t.same(
      answers.map((r) => r.status),
      Array(100).fill(200),
      'a burst of 100 is served',
    );
    t.ok(
      answers.every((r) => header(r, 'x-ratelimit-limit') === 1000),
      'limit: 1,000 a minute (the default), not the burst',
    );
    t.same(
      answers.map((r) => header(r, 'x-ratelimit-remaining')),
      Array.from({ length: 100 }, (_, i) => 999 - i),
      'remaining counts the minute down from 999',
    );
    t.ok(
      answers.every((r) => header(r, 'x-ratelimit-reset') === MINUTE_END),
      'reset: the end of the minute, when remaining is 1,000 again',
    );

    const refused = await get();
    checkError(t, refused, 429, 'rate_limit_exceeded', {
      message: /more than 100 requests in a burst/,
      details: { limit: 1000, burst: 100, reason: 'burst', retryAfter: 1 },
    });
    t.equal(refused.headers.get('retry-after'), '1', 'Retry-After: seconds until the burst lets one through');
    t.equal(header(refused, 'x-ratelimit-limit'), 1000);
    t.equal(header(refused, 'x-ratelimit-remaining'), 900, 'the minute still has 900 left');
    t.equal(header(refused, 'x-ratelimit-reset'), MINUTE_END);
    checkError(
      t,
      await call(svc.adminUrl, 'POST', '/traces', {
        auth: bearer(key),
        raw: '{not json',
        contentType: 'application/json',
      }),
      429,
      'rate_limit_exceeded',
      {},
    );
    checkError(t, await get(key, '/no-such-route'), 429, 'rate_limit_exceeded', {});

    const otherAnswer = await get(other);
    t.equal(otherAnswer.status, 200, 'another key has its own limit');
    t.equal(header(otherAnswer, 'x-ratelimit-remaining'), 999);

    clock.advance(59);
    t.equal((await get()).status, 429, 'the burst refills one request per 60 ms: not yet at 59 ms');
    clock.advance(1);
    const one = await get();
    t.equal(one.status, 200, 'at 60 ms one more is let through');
    t.equal(header(one, 'x-ratelimit-remaining'), 899, 'refused requests were not counted');
    t.equal((await get()).status, 429, 'and only one');

    clock.advance(60_000);
    const next = await get();
    t.equal(next.status, 200);
    t.equal(header(next, 'x-ratelimit-remaining'), 999, 'a new minute: 1,000 again');
    t.equal(header(next, 'x-ratelimit-reset'), MINUTE_END + 60);
  },
);

t.test('a minute that used its limit refuses until it ends, with Retry-After to its end', async (t) => {
  const clock = frozenClock(T0);
  const svc = await startTestService(t, baseConfig({ api: { rate_limit: { requests_per_minute: 10, burst: 5 } } }), {
    clock,
  });
  const key = await createApiKey(svc.service.db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: T0,
  });
  const get = () => call(svc.adminUrl, 'GET', '/agents', { auth: bearer(key) });
  const remaining: number[] = [];
  for (let i = 0; i < 5; i++) remaining.push(header(await get(), 'x-ratelimit-remaining'));
  // After the burst, one request every 6 s (10 a minute): the 10th at 30 s.
  for (let i = 0; i < 5; i++) {
    clock.advance(6000);
    remaining.push(header(await get(), 'x-ratelimit-remaining'));
  }
  t.same(remaining, [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  clock.advance(6000);
  const refused = await get();
  checkError(t, refused, 429, 'rate_limit_exceeded', {
    message: /more than 10 requests this minute/,
    details: { limit: 10, reason: 'minute', retryAfter: 24 },
  });
  t.equal(refused.headers.get('retry-after'), '24', 'Retry-After: seconds until the minute ends');
  t.equal(header(refused, 'x-ratelimit-remaining'), 0);
  t.equal(header(refused, 'x-ratelimit-reset'), MINUTE_END);
  clock.advance(24_000);
  const next = await get();
  t.equal(next.status, 200, 'served when the minute ends');
  t.equal(header(next, 'x-ratelimit-remaining'), 9);
});

t.test('requests that fail authentication are limited by client address', async (t) => {
  const clock = frozenClock(T0);
  const svc = await startTestService(t, baseConfig({ api: { rate_limit: { requests_per_minute: 600, burst: 3 } } }), {
    clock,
  });
  const key = await createApiKey(svc.service.db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: T0,
  });
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await call(svc.adminUrl, 'GET', '/traces', { auth: 'Bearer sk-svc-guess' });
    checkCommonHeaders(t, r);
    statuses.push(r.status);
  }
  t.same(statuses, [401, 401, 401, 429], 'guesses share the address limit');
  const missing = await call(svc.adminUrl, 'GET', '/traces');
  checkError(t, missing, 429, 'rate_limit_exceeded');
  t.equal(missing.headers.get('retry-after'), '1', '600 per minute: one request per 100 ms, announced as 1 s');
  const valid = await call(svc.adminUrl, 'GET', '/traces', { auth: bearer(key) });
  t.equal(valid.status, 200, "a valid key uses its own limit, not the address's");
  t.equal(header(valid, 'x-ratelimit-limit'), 600, 'the configured per-minute limit');
  t.equal(header(valid, 'x-ratelimit-remaining'), 599);
  clock.advance(100);
  t.equal(
    (await call(svc.adminUrl, 'GET', '/traces', { auth: 'Bearer sk-svc-guess' })).status,
    401,
    'the address limit refills too',
  );
});

t.test('a reloaded configuration changes the limit at once', async (t) => {
  const clock = frozenClock(T0);
  const config = baseConfig({ api: { rate_limit: { requests_per_minute: 60, burst: 2 } } });
  const svc = await startTestService(t, config, { clock });
  const key = await createApiKey(svc.service.db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: T0,
  });
  const get = () => call(svc.adminUrl, 'GET', '/agents', { auth: bearer(key) });
  t.same([(await get()).status, (await get()).status], [200, 200]);
  const refused = await get();
  t.equal(refused.status, 429);
  t.equal(refused.headers.get('retry-after'), '1', '60 per minute: one request per second');
  svc.writeConfig(baseConfig({ api: { rate_limit: { requests_per_minute: 120, burst: 5 } } }));
  t.same(await svc.service.reload(), { ok: true });
  const after = await get();
  t.equal(after.status, 200, 'the larger burst lets the next request through');
  t.equal(header(after, 'x-ratelimit-limit'), 120, 'the new per-minute limit');
  t.equal(header(after, 'x-ratelimit-remaining'), 117, 'of which this minute has used 3');
});

t.test('the api.rate_limit section: defaults, bounds and unknown keys, checked at load', async (t) => {
  const load = (extra: Record<string, unknown>) => parseConfig(stringify(baseConfig(extra)), { env: {} });
  t.same(load({}).config.api, { rate_limit: { requests_per_minute: 1000, burst: 100 } }, 'the Pro plan by default');
  t.same(load({ api: { rate_limit: { burst: 10 } } }).config.api.rate_limit, { requests_per_minute: 1000, burst: 10 });
  t.same(
    load({ api: { rate_limit: { requests_per_minute: 1_000_000, burst: 100_000 } } }).config.api.rate_limit,
    { requests_per_minute: 1_000_000, burst: 100_000 },
    'the upper bounds',
  );
  const refused: [Record<string, unknown>, RegExp][] = [
    [{ rate_limit: { requests_per_minute: 0 } }, /api\.rate_limit\.requests_per_minute/],
    [{ rate_limit: { requests_per_minute: 1_000_001 } }, /api\.rate_limit\.requests_per_minute/],
    [{ rate_limit: { burst: 0 } }, /api\.rate_limit\.burst/],
    [{ rate_limit: { burst: 100_001 } }, /api\.rate_limit\.burst/],
    [{ rate_limit: { burst: 1.5 } }, /api\.rate_limit\.burst/],
    [{ rate_limit: { per_hour: 5 } }, /unknown property 'per_hour'/],
    [{ limits: {} }, /unknown property 'limits'/],
  ];
  for (const [api, message] of refused) t.throws(() => load({ api }), message, JSON.stringify(api));
});
