// The REST API's rate limit (spec part 8, docs/rest-api.md): a token bucket per API key, 1,000 requests per minute
// with a burst of 100 unless gateway.yaml says otherwise; refused requests get 429 rate_limit_exceeded with
// Retry-After. The service clock is frozen so that refill happens only when the test moves it.
import t from 'tap';
import { stringify } from 'yaml';
import { parseConfig } from '../../src/config/load-config.ts';
import type { Clock } from '../../src/pipeline/clock.ts';
import { systemClock } from '../../src/pipeline/clock.ts';
import { createApiKey } from '../../src/store/repos/api-keys.ts';
import { bearer, call, checkCommonHeaders, checkError, type RestResponse } from '../helpers/rest-api.ts';
import { baseConfig, startTestService } from '../helpers/service.ts';

/** A clock that stands still until the test moves it. */
function frozenClock(at: number): Clock & { advance(ms: number): void } {
  let now = at;
  return { now: () => now, sleep: systemClock.sleep, advance: (ms) => (now += ms) };
}

const header = (r: RestResponse, name: string) => Number(r.headers.get(name));

t.test('token bucket per key: a burst of 100, then one request per 60 ms', async (t) => {
  const T0 = Date.parse('2026-05-01T12:00:00.000Z');
  const clock = frozenClock(T0);
  const svc = await startTestService(t, baseConfig(), { clock });
  const key = await createApiKey(svc.service.db, { kind: 'project', organizationId: 'default', projectId: 'default', now: T0 });
  const other = await createApiKey(svc.service.db, { kind: 'project', organizationId: 'default', projectId: 'default', now: T0 });
  const get = (k = key, path = '/agents') => call(svc.adminUrl, 'GET', path, { auth: bearer(k) });

  const answers: RestResponse[] = [];
  for (let i = 0; i < 100; i++) answers.push(await get());
  t.same(answers.map((r) => r.status), Array(100).fill(200), 'the first 100 requests are served');
  t.same(answers.map((r) => header(r, 'x-ratelimit-remaining')), Array.from({ length: 100 }, (_, i) => 99 - i), 'remaining counts down to 0');
  t.ok(answers.every((r) => header(r, 'x-ratelimit-limit') === 100), 'limit is the burst (the default)');
  // Full again after 1 token x 60 ms, then after all 100 tokens x 60 ms.
  t.equal(header(answers[0], 'x-ratelimit-reset'), Math.ceil((T0 + 60) / 1000), 'reset: when the bucket is full again');
  t.equal(header(answers[99], 'x-ratelimit-reset'), (T0 + 6000) / 1000);

  const refused = await get();
  checkError(t, refused, 429, 'rate_limit_exceeded', { details: { limit: 100, requestsPerMinute: 1000, retryAfter: 1 } });
  t.equal(refused.headers.get('retry-after'), '1', 'Retry-After: seconds until one token');
  t.equal(header(refused, 'x-ratelimit-remaining'), 0);
  t.equal(header(refused, 'x-ratelimit-reset'), (T0 + 6000) / 1000);
  checkError(t, await call(svc.adminUrl, 'POST', '/traces', { auth: bearer(key), raw: '{not json', contentType: 'application/json' }), 429, 'rate_limit_exceeded', {});
  checkError(t, await get(key, '/no-such-route'), 429, 'rate_limit_exceeded', {});

  const otherAnswer = await get(other);
  t.equal(otherAnswer.status, 200, 'another key has its own bucket');
  t.equal(header(otherAnswer, 'x-ratelimit-remaining'), 99);

  clock.advance(59);
  t.equal((await get()).status, 429, '59 ms refill less than one token');
  clock.advance(1);
  const one = await get();
  t.equal(one.status, 200, 'at 60 ms one token is back');
  t.equal(header(one, 'x-ratelimit-remaining'), 0);
  t.equal((await get()).status, 429, 'and only one');

  clock.advance(6000);
  const full = await get();
  t.equal(full.status, 200);
  t.equal(header(full, 'x-ratelimit-remaining'), 99, 'after 6 s the bucket is full again');
  clock.advance(60 * 60_000);
  t.equal(header(await get(), 'x-ratelimit-remaining'), 99, 'and never holds more than the burst');
});

t.test('requests that fail authentication are limited by client address', async (t) => {
  const T0 = Date.parse('2026-05-01T12:00:00.000Z');
  const clock = frozenClock(T0);
  const svc = await startTestService(t, baseConfig({ api: { rate_limit: { requests_per_minute: 600, burst: 3 } } }), { clock });
  const key = await createApiKey(svc.service.db, { kind: 'project', organizationId: 'default', projectId: 'default', now: T0 });
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await call(svc.adminUrl, 'GET', '/traces', { auth: 'Bearer sk-svc-guess' });
    checkCommonHeaders(t, r);
    statuses.push(r.status);
  }
  t.same(statuses, [401, 401, 401, 429], 'guesses share the address bucket');
  const missing = await call(svc.adminUrl, 'GET', '/traces');
  checkError(t, missing, 429, 'rate_limit_exceeded');
  t.equal(missing.headers.get('retry-after'), '1', '600 per minute: one token per 100 ms, announced as 1 s');
  const valid = await call(svc.adminUrl, 'GET', '/traces', { auth: bearer(key) });
  t.equal(valid.status, 200, "a valid key uses its own bucket, not the address's");
  t.equal(header(valid, 'x-ratelimit-limit'), 3, 'the configured burst');
  t.equal(header(valid, 'x-ratelimit-remaining'), 2);
  clock.advance(100);
  t.equal((await call(svc.adminUrl, 'GET', '/traces', { auth: 'Bearer sk-svc-guess' })).status, 401, 'the address bucket refills too');
});

t.test('a reloaded configuration changes the limit at once', async (t) => {
  const T0 = Date.parse('2026-05-01T12:00:00.000Z');
  const clock = frozenClock(T0);
  const config = baseConfig({ api: { rate_limit: { requests_per_minute: 60, burst: 2 } } });
  const svc = await startTestService(t, config, { clock });
  const key = await createApiKey(svc.service.db, { kind: 'project', organizationId: 'default', projectId: 'default', now: T0 });
  const get = () => call(svc.adminUrl, 'GET', '/agents', { auth: bearer(key) });
  t.same([(await get()).status, (await get()).status], [200, 200]);
  const refused = await get();
  t.equal(refused.status, 429);
  t.equal(refused.headers.get('retry-after'), '1', '60 per minute: one token per second');
  svc.writeConfig(baseConfig({ api: { rate_limit: { requests_per_minute: 60, burst: 5 } } }));
  t.same(await svc.service.reload(), { ok: true });
  const after = await get();
  t.equal(after.status, 429, 'the bucket keeps its tokens: still empty');
  t.equal(header(after, 'x-ratelimit-limit'), 5, 'but the new burst applies');
  clock.advance(5000);
  t.equal(header(await get(), 'x-ratelimit-remaining'), 4, 'and it fills to the new burst');
});

t.test('the api.rate_limit section: defaults, bounds and unknown keys, checked at load', async (t) => {
  const load = (extra: Record<string, unknown>) => parseConfig(stringify(baseConfig(extra)), { env: {} });
  t.same(load({}).config.api, { rate_limit: { requests_per_minute: 1000, burst: 100 } }, 'the Pro plan by default');
  t.same(load({ api: { rate_limit: { burst: 10 } } }).config.api.rate_limit, { requests_per_minute: 1000, burst: 10 });
  t.same(load({ api: { rate_limit: { requests_per_minute: 1_000_000, burst: 100_000 } } }).config.api.rate_limit, { requests_per_minute: 1_000_000, burst: 100_000 }, 'the upper bounds');
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
