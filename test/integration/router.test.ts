// Routing against real fake upstreams: retries, backoff, timeouts, connection failures, pass-through errors,
// fallback groups, benching, weights, attempt records, and what the upstream receives (OpenAI and Azure).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { startFakeOpenAI, type Behaviour, type FakeOpenAI } from '../helpers/fake-openai.ts';
import { TEST_KEY, baseConfig, chatBody, openaiDeployment, postJson, startTestService } from '../helpers/service.ts';

interface Attempt {
  d: string;
  o: string;
  ms: number;
  st?: number;
  why?: string;
}

const attemptsOf = (res: Response): Attempt[] => JSON.parse(res.headers.get('x-svc-attempts') ?? 'null');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The attempt records, exactly as many as the pattern has, each matching it. */
function matchAttempts(t: Test, res: Response, pattern: Record<string, unknown>[]): Attempt[] {
  const attempts = attemptsOf(res);
  t.equal(attempts?.length, pattern.length, `${pattern.length} attempt record(s)`);
  t.match(attempts, pattern);
  return attempts;
}

async function fake(t: Test, fallback: Behaviour = { type: 'ok' }): Promise<FakeOpenAI> {
  const f = await startFakeOpenAI(fallback);
  t.teardown(() => f.close());
  return f;
}

/** A config whose key is granted `granted` (default: the first group), with the router's plugin config. */
function configWith(groups: Record<string, unknown>[], router: Record<string, unknown> = {}, granted?: string[]) {
  return baseConfig({
    model_groups: groups.map((g) => ({ created_at: '2026-11-21T00:00:00Z', ...g })),
    keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: granted ?? [groups[0].name] }],
    plugins: [{ use: 'auth' }, { use: 'router', config: router }],
  });
}

const chat = (url: string, model: string, extra: Record<string, unknown> = {}) =>
  postJson(url, '/v1/chat/completions', chatBody({ model, ...extra }));

async function benchedIds(adminUrl: string): Promise<string[]> {
  const m = (await (await fetch(`${adminUrl}/metrics`)).json()) as any;
  return Object.keys(m.deployments.benched_until).sort();
}

t.test('retryable provider statuses are retried at once on another deployment', async (t) => {
  const up = await fake(t);
  // A huge backoff would make any wait visible: switching to an untried deployment must not wait.
  const { gatewayUrl } = await startTestService(
    t,
    configWith(
      [
        {
          name: 'g',
          routing: { retries: 2, bench_ms: 0, max_backoff_ms: 5000 },
          deployments: [openaiDeployment('a', up.url), openaiDeployment('b', up.url)],
        },
      ],
      { backoff_base_ms: 5000 },
    ),
  );
  for (const status of [500, 502, 503, 529, 429, 408, 409]) {
    const before = up.requests.length;
    up.queue.push({ type: 'error', status });
    const started = performance.now();
    const res = await chat(gatewayUrl, 'g');
    const elapsed = performance.now() - started;
    t.equal(res.status, 200, `${status}: served`);
    const body = (await res.json()) as any;
    t.equal(body.choices[0].message.content, 'Hello from fake');
    const attempts = attemptsOf(res);
    t.equal(attempts.length, 2, `${status}: two attempts`);
    t.match(attempts[0], { o: 'retryable', st: status, why: `fake error ${status}` });
    t.match(attempts[1], { o: 'ok' });
    t.not(attempts[0].d, attempts[1].d, `${status}: the second attempt used the other deployment`);
    t.equal(res.headers.get('x-svc-deployment'), attempts[1].d);
    t.equal(up.requests.length - before, 2, `${status}: the upstream saw two requests`);
    t.equal(up.requests[before].body.model, `model-${attempts[0].d}`);
    t.equal(up.requests[before + 1].body.model, `model-${attempts[1].d}`);
    t.ok(elapsed < 1000, `${status}: no backoff before the untried deployment (${Math.round(elapsed)} ms)`);
  }
});

t.test('401, 403 and 404 from a provider fail that deployment and move on to another', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(
    t,
    configWith([
      {
        name: 'g',
        routing: { retries: 2, bench_ms: 0 },
        deployments: [openaiDeployment('a', up.url), openaiDeployment('b', up.url)],
      },
    ]),
  );
  for (const status of [401, 403, 404]) {
    up.queue.push({
      type: 'error',
      status,
      envelope: { error: { message: `denied ${status}`, type: 'invalid_request_error', param: null, code: 'nope' } },
    });
    const res = await chat(gatewayUrl, 'g');
    t.equal(res.status, 200, `${status}: served by the other deployment`);
    const attempts = matchAttempts(t, res, [{ o: 'failed', st: status, why: `denied ${status}` }, { o: 'ok' }]);
    t.not(attempts[0].d, attempts[1].d);
  }
});

t.test('health signals bench a deployment; 403 and other 4xx do not', async (t) => {
  const cases: [Behaviour, boolean][] = [
    [{ type: 'error', status: 500 }, true],
    [{ type: 'error', status: 429 }, true],
    [{ type: 'error', status: 401 }, true],
    [{ type: 'error', status: 404 }, true],
    [{ type: 'reset' }, true],
    [{ type: 'error', status: 403 }, false],
    [{ type: 'error', status: 400 }, false],
    [{ type: 'invalid-json' }, false],
  ];
  for (const [behaviour, benches] of cases) {
    const up = await fake(t);
    const svc = await startTestService(
      t,
      configWith([
        {
          name: 'g',
          routing: { retries: 2, bench_ms: 60_000 },
          deployments: [openaiDeployment('a', up.url), openaiDeployment('b', up.url)],
        },
      ]),
    );
    up.queue.push(behaviour);
    const res = await chat(svc.gatewayUrl, 'g');
    await res.arrayBuffer();
    const first = attemptsOf(res)[0];
    const label = `${behaviour.type} ${(behaviour as { status?: number }).status ?? ''}`;
    t.same(await benchedIds(svc.adminUrl), benches ? [first.d] : [], `${label}: benched=${benches}`);
  }
});

t.test('retry-after-ms from the provider is honoured before retrying the same deployment', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(
    t,
    configWith(
      [{ name: 'g', routing: { retries: 1, max_backoff_ms: 1000 }, deployments: [openaiDeployment('only', up.url)] }],
      { backoff_base_ms: 1 },
    ),
  );
  up.queue.push({ type: 'error', status: 429, headers: { 'retry-after-ms': '120' } });
  const started = performance.now();
  const res = await chat(gatewayUrl, 'g');
  const elapsed = performance.now() - started;
  t.equal(res.status, 200);
  matchAttempts(t, res, [
    { d: 'only', o: 'retryable', st: 429 },
    { d: 'only', o: 'ok' },
  ]);
  t.equal(up.requests.length, 2, 'the upstream saw the first call and the retry');
  t.ok(elapsed >= 110, `waited for retry-after-ms (${Math.round(elapsed)} ms)`);
  t.ok(elapsed < 900, 'and not much longer');
});

t.test('retry-after in seconds is honoured but capped by routing.max_backoff_ms', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(
    t,
    configWith(
      [{ name: 'g', routing: { retries: 1, max_backoff_ms: 100 }, deployments: [openaiDeployment('only', up.url)] }],
      { backoff_base_ms: 1 },
    ),
  );
  up.queue.push({ type: 'error', status: 503, headers: { 'retry-after': '30' } });
  const started = performance.now();
  const res = await chat(gatewayUrl, 'g');
  const elapsed = performance.now() - started;
  t.equal(res.status, 200);
  t.equal(up.requests.length, 2);
  t.ok(elapsed >= 90, `waited about max_backoff_ms (${Math.round(elapsed)} ms)`);
  t.ok(elapsed < 1000, 'the 30 s hint was capped');
});

t.test('when retries are exhausted the last provider error passes through', async (t) => {
  const envelope = {
    error: { message: 'The server is overloaded', type: 'server_error', param: null, code: 'overloaded' },
  };
  const up = await fake(t, { type: 'error', status: 503, envelope });
  const { gatewayUrl } = await startTestService(
    t,
    configWith(
      [{ name: 'g', routing: { retries: 2, max_backoff_ms: 10 }, deployments: [openaiDeployment('only', up.url)] }],
      { backoff_base_ms: 1 },
    ),
  );
  const res = await chat(gatewayUrl, 'g');
  t.equal(res.status, 503);
  t.same(await res.json(), envelope, "the provider's envelope, unchanged");
  t.equal(up.requests.length, 3, 'first call plus two retries');
  matchAttempts(t, res, [
    { d: 'only', o: 'retryable', st: 503 },
    { d: 'only', o: 'retryable', st: 503 },
    { d: 'only', o: 'retryable', st: 503 },
  ]);
  t.equal(res.headers.get('x-svc-model-group'), 'g');
  t.equal(res.headers.get('x-svc-cost'), null, 'no cost on a failure');
  t.match(res.headers.get('x-svc-request-id'), /^[0-9a-f-]{36}$/);
});

t.test('a provider that does not answer in time is a 504 upstream_timeout', async (t) => {
  const up = await fake(t, { type: 'hang' });
  const { gatewayUrl } = await startTestService(
    t,
    configWith([
      { name: 'g', routing: { retries: 0, timeout_ms: 100 }, deployments: [openaiDeployment('slow', up.url)] },
    ]),
  );
  const started = performance.now();
  const res = await chat(gatewayUrl, 'g');
  const elapsed = performance.now() - started;
  t.equal(res.status, 504);
  const body = (await res.json()) as any;
  t.same(body, { error: { message: body.error.message, type: 'server_error', param: null, code: 'upstream_timeout' } });
  const attempts = matchAttempts(t, res, [{ d: 'slow', o: 'timeout' }]);
  t.notOk('st' in attempts[0], 'no provider status on a timeout');
  // undici's header and body timers tick about every half second: a timeout fires between timeout_ms and about
  // timeout_ms + 1 s (docs/decisions.md, "Provider timeouts"). Not 30 s, not never.
  t.ok(attempts[0].ms >= 90 && attempts[0].ms < 1600, `attempt ended by the timeout (${attempts[0].ms} ms)`);
  t.ok(elapsed < 2000);
  t.equal(up.requests.length, 1);
});

t.test('a timed-out attempt is retried on another deployment', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(
    t,
    configWith([
      {
        name: 'g',
        routing: { retries: 1, timeout_ms: 100, bench_ms: 0 },
        deployments: [openaiDeployment('a', up.url), openaiDeployment('b', up.url)],
      },
    ]),
  );
  up.queue.push({ type: 'hang' });
  const res = await chat(gatewayUrl, 'g');
  t.equal(res.status, 200);
  const attempts = matchAttempts(t, res, [{ o: 'timeout' }, { o: 'ok' }]);
  t.not(attempts[0].d, attempts[1].d);
});

t.test('a per-deployment timeout_ms overrides the group timeout', async (t) => {
  const up = await fake(t, { type: 'delay', ms: 80, then: { type: 'ok' } });
  const { gatewayUrl } = await startTestService(
    t,
    configWith([
      {
        name: 'g',
        routing: { retries: 0, timeout_ms: 30 },
        deployments: [openaiDeployment('patient', up.url, { timeout_ms: 2000 })],
      },
    ]),
  );
  const res = await chat(gatewayUrl, 'g');
  t.equal(res.status, 200);
  matchAttempts(t, res, [{ d: 'patient', o: 'ok' }]);
});

t.test('a connection reset is a 502 upstream_unreachable', async (t) => {
  const up = await fake(t, { type: 'reset' });
  const { gatewayUrl } = await startTestService(
    t,
    configWith([{ name: 'g', routing: { retries: 0 }, deployments: [openaiDeployment('flaky', up.url)] }]),
  );
  const res = await chat(gatewayUrl, 'g');
  t.equal(res.status, 502);
  const body = (await res.json()) as any;
  t.match(body, { error: { type: 'server_error', param: null, code: 'upstream_unreachable', message: String } });
  const attempts = matchAttempts(t, res, [{ d: 'flaky', o: 'retryable' }]);
  t.notOk('st' in attempts[0]);
  t.equal(up.requests.length, 1);
});

t.test('a closed port is a 502 upstream_unreachable', async (t) => {
  const gone = await startFakeOpenAI();
  const url = gone.url;
  await gone.close();
  const { gatewayUrl } = await startTestService(
    t,
    configWith([{ name: 'g', routing: { retries: 0 }, deployments: [openaiDeployment('gone', url)] }]),
  );
  const res = await chat(gatewayUrl, 'g');
  t.equal(res.status, 502);
  const body = (await res.json()) as any;
  t.match(body, { error: { type: 'server_error', param: null, code: 'upstream_unreachable' } });
  t.match(body.error.message, /cannot reach provider/);
  matchAttempts(t, res, [{ d: 'gone', o: 'retryable', why: /cannot reach provider/ }]);
});

t.test('a 2xx body that is not a JSON object is a 502 upstream_invalid_response', async (t) => {
  for (const behaviour of [
    { type: 'invalid-json' },
    { type: 'json', body: [1, 2, 3] },
    { type: 'json', body: 'just a string' },
  ] as Behaviour[]) {
    const up = await fake(t, behaviour);
    const { gatewayUrl } = await startTestService(
      t,
      configWith([{ name: 'g', routing: { retries: 0 }, deployments: [openaiDeployment('odd', up.url)] }]),
    );
    const res = await chat(gatewayUrl, 'g');
    t.equal(res.status, 502);
    t.match(await res.json(), { error: { type: 'server_error', param: null, code: 'upstream_invalid_response' } });
    matchAttempts(t, res, [{ d: 'odd', o: 'failed', st: 200 }]);
  }
});

t.test('an invalid 2xx body moves on to another deployment', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(
    t,
    configWith([
      {
        name: 'g',
        routing: { retries: 1 },
        deployments: [openaiDeployment('a', up.url), openaiDeployment('b', up.url)],
      },
    ]),
  );
  up.queue.push({ type: 'invalid-json' });
  const res = await chat(gatewayUrl, 'g');
  t.equal(res.status, 200);
  const attempts = matchAttempts(t, res, [{ o: 'failed', st: 200 }, { o: 'ok' }]);
  t.not(attempts[0].d, attempts[1].d);
});

t.test('a 400 from the provider passes through with its envelope and is not retried', async (t) => {
  const envelope = {
    error: {
      message: "Invalid value for 'temperature'",
      type: 'invalid_request_error',
      param: 'temperature',
      code: 'invalid_value',
    },
  };
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(
    t,
    configWith([
      {
        name: 'g',
        routing: { retries: 3 },
        deployments: [openaiDeployment('a', up.url), openaiDeployment('b', up.url)],
      },
    ]),
  );
  up.queue.push({ type: 'error', status: 400, envelope });
  const res = await chat(gatewayUrl, 'g', { temperature: 7 });
  t.equal(res.status, 400);
  t.same(await res.json(), envelope);
  t.equal(up.requests.length, 1, 'not retried');
  t.equal(up.requests[0].body.temperature, 7, 'the client field reached the provider');
  matchAttempts(t, res, [{ o: 'failed', st: 400, why: "Invalid value for 'temperature'" }]);
  t.equal(res.headers.get('x-svc-model-group'), 'g');
});

t.test('other 4xx statuses stop at once too (422 with a plain-text body)', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(
    t,
    configWith([
      {
        name: 'g',
        routing: { retries: 3 },
        deployments: [openaiDeployment('a', up.url), openaiDeployment('b', up.url)],
      },
    ]),
  );
  up.queue.push({ type: 'error', status: 422, text: 'unprocessable thing' });
  const res = await chat(gatewayUrl, 'g');
  t.equal(res.status, 422);
  t.same(await res.json(), {
    error: { message: 'unprocessable thing', type: 'invalid_request_error', param: null, code: 'upstream_error' },
  });
  t.equal(up.requests.length, 1);
});

t.test('a plain-text provider error becomes code upstream_error with the text as message', async (t) => {
  const up = await fake(t, { type: 'error', status: 500, text: '  upstream exploded\n' });
  const { gatewayUrl } = await startTestService(
    t,
    configWith([{ name: 'g', routing: { retries: 0 }, deployments: [openaiDeployment('a', up.url)] }]),
  );
  const res = await chat(gatewayUrl, 'g');
  t.equal(res.status, 500);
  t.same(await res.json(), {
    error: { message: 'upstream exploded', type: 'server_error', param: null, code: 'upstream_error' },
  });
  matchAttempts(t, res, [{ d: 'a', o: 'retryable', st: 500, why: 'upstream exploded' }]);
});

t.test('a JSON provider error without an error envelope uses its message and code upstream_error', async (t) => {
  const up = await fake(t, { type: 'json', status: 503, body: { message: 'maintenance window' } });
  const { gatewayUrl } = await startTestService(
    t,
    configWith([{ name: 'g', routing: { retries: 0 }, deployments: [openaiDeployment('a', up.url)] }]),
  );
  const res = await chat(gatewayUrl, 'g');
  t.equal(res.status, 503);
  t.same(await res.json(), {
    error: { message: 'maintenance window', type: 'server_error', param: null, code: 'upstream_error' },
  });
});

t.test('the fallback group is used after the retries are exhausted', async (t) => {
  const primary = await fake(t, { type: 'error', status: 503 });
  const backup = await fake(t);
  const { gatewayUrl } = await startTestService(
    t,
    configWith(
      [
        {
          name: 'primary',
          fallback: 'backup',
          routing: { retries: 1, bench_ms: 0, max_backoff_ms: 10 },
          deployments: [openaiDeployment('p1', primary.url)],
        },
        { name: 'backup', deployments: [openaiDeployment('b1', backup.url)] },
      ],
      { backoff_base_ms: 1 },
    ),
  );
  const res = await chat(gatewayUrl, 'primary');
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-svc-model-group'), 'backup');
  t.equal(res.headers.get('x-svc-deployment'), 'b1');
  matchAttempts(t, res, [
    { d: 'p1', o: 'retryable', st: 503 },
    { d: 'p1', o: 'retryable', st: 503 },
    { d: 'b1', o: 'ok' },
  ]);
  t.equal(primary.requests.length, 2);
  t.equal(backup.requests.length, 1);
  t.equal(backup.requests[0].body.model, 'model-b1');
  t.equal(backup.requests[0].headers.authorization, 'Bearer upstream-key-b1');
});

t.test('when the fallback group fails too, its last error is the answer', async (t) => {
  const primary = await fake(t, { type: 'error', status: 500 });
  const envelope = {
    error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' },
  };
  const backup = await fake(t, { type: 'error', status: 429, envelope, headers: { 'retry-after': '7' } });
  const { gatewayUrl } = await startTestService(
    t,
    configWith([
      {
        name: 'primary',
        fallback: 'backup',
        routing: { retries: 0 },
        deployments: [openaiDeployment('p1', primary.url)],
      },
      { name: 'backup', routing: { retries: 0 }, deployments: [openaiDeployment('b1', backup.url)] },
    ]),
  );
  const res = await chat(gatewayUrl, 'primary');
  t.equal(res.status, 429);
  t.same(await res.json(), envelope);
  t.equal(res.headers.get('x-svc-model-group'), 'backup');
  matchAttempts(t, res, [
    { d: 'p1', o: 'retryable', st: 500 },
    { d: 'b1', o: 'retryable', st: 429 },
  ]);
  t.equal(res.headers.get('retry-after'), '7', "the provider's retry hint reaches the client");
  t.equal(res.headers.get('retry-after-ms'), '7000');
});

t.test('a benched deployment gets no traffic for bench_ms, then returns', async (t) => {
  const up = await fake(t);
  const svc = await startTestService(
    t,
    configWith([
      {
        name: 'g',
        routing: { retries: 1, bench_ms: 250 },
        deployments: [openaiDeployment('a', up.url), openaiDeployment('b', up.url)],
      },
    ]),
  );
  up.queue.push({ type: 'error', status: 500 });
  const first = await chat(svc.gatewayUrl, 'g');
  t.equal(first.status, 200);
  const [failed, ok] = matchAttempts(t, first, [{ o: 'retryable', st: 500 }, { o: 'ok' }]);
  const sick = failed.d;
  const healthy = ok.d;
  t.not(sick, healthy);
  t.same(await benchedIds(svc.adminUrl), [sick], '/metrics lists the benched deployment');

  const seen = new Set<string>();
  for (let i = 0; i < 12; i++) {
    const res = await chat(svc.gatewayUrl, 'g');
    t.equal(res.status, 200);
    seen.add(res.headers.get('x-svc-deployment')!);
    t.equal(attemptsOf(res).length, 1);
  }
  t.same([...seen], [healthy], 'only the healthy deployment served while the other was benched');

  await sleep(270);
  t.same(await benchedIds(svc.adminUrl), [], 'the bench expired');
  let back = false;
  for (let i = 0; i < 40 && !back; i++) {
    const res = await chat(svc.gatewayUrl, 'g');
    back = res.headers.get('x-svc-deployment') === sick;
  }
  t.ok(back, 'the benched deployment takes traffic again after bench_ms');
});

t.test('the last unbenched deployment of a group without fallback is never benched', async (t) => {
  const up = await fake(t, { type: 'error', status: 500 });
  const svc = await startTestService(
    t,
    configWith([
      {
        name: 'g',
        routing: { retries: 1, bench_ms: 60_000 },
        deployments: [openaiDeployment('a', up.url), openaiDeployment('b', up.url)],
      },
    ]),
  );
  const res = await chat(svc.gatewayUrl, 'g');
  t.equal(res.status, 500);
  const attempts = attemptsOf(res);
  t.equal(attempts.length, 2);
  t.same(await benchedIds(svc.adminUrl), [attempts[0].d], 'only the first failing deployment is benched');
  // The next request still reaches the provider (and gets its error) rather than a 503.
  up.fallback = { type: 'ok' };
  const next = await chat(svc.gatewayUrl, 'g');
  t.equal(next.status, 200);
  t.equal(next.headers.get('x-svc-deployment'), attempts[1].d);
});

t.test('a fully benched group records benched attempts and falls back', async (t) => {
  const up = await fake(t, { type: 'error', status: 500 });
  const { gatewayUrl } = await startTestService(
    t,
    configWith([
      {
        name: 'primary',
        fallback: 'spare',
        routing: { retries: 2, bench_ms: 60_000 },
        deployments: [openaiDeployment('p1', up.url), openaiDeployment('p2', up.url)],
      },
      { name: 'spare', deployments: [{ id: 'spare-mock', provider: 'mock', model: 'mock-spare' }] },
    ]),
  );
  const first = await chat(gatewayUrl, 'primary');
  t.equal(first.status, 200, 'the spare group served after both primaries failed');
  const firstAttempts = attemptsOf(first);
  t.same(
    firstAttempts.map((a) => a.o),
    ['retryable', 'retryable', 'ok'],
  );
  t.same(firstAttempts.map((a) => a.d).sort(), ['p1', 'p2', 'spare-mock']);
  t.equal(up.requests.length, 2);

  const second = await chat(gatewayUrl, 'primary');
  t.equal(second.status, 200);
  t.equal(second.headers.get('x-svc-model-group'), 'spare');
  const attempts = attemptsOf(second);
  t.equal(attempts.length, 3);
  t.same(
    attempts.slice(0, 2).sort((x, y) => x.d.localeCompare(y.d)),
    [
      { d: 'p1', o: 'benched', ms: 0 },
      { d: 'p2', o: 'benched', ms: 0 },
    ],
  );
  t.match(attempts[2], { d: 'spare-mock', o: 'ok' });
  t.equal(up.requests.length, 2, 'benched deployments were not called');
});

t.test('everything benched and no eligible fallback: 503 no_deployment_available', async (t) => {
  const up = await fake(t, { type: 'error', status: 500 });
  const { gatewayUrl } = await startTestService(
    t,
    configWith([
      {
        name: 'primary',
        fallback: 'spare',
        routing: { retries: 2, bench_ms: 60_000 },
        deployments: [openaiDeployment('p1', up.url), openaiDeployment('p2', up.url)],
      },
      // Out of rotation: an OpenAI deployment without api_key.
      { name: 'spare', deployments: [openaiDeployment('s1', up.url, { api_key: '' })] },
    ]),
  );
  const first = await chat(gatewayUrl, 'primary');
  t.equal(first.status, 500, 'the last provider error when nothing else is left');
  t.equal(attemptsOf(first).length, 2);
  t.equal(first.headers.get('x-svc-model-group'), 'primary', 'the spare group made no attempt, so it did not serve');

  const res = await chat(gatewayUrl, 'primary');
  t.equal(res.status, 503);
  const body = (await res.json()) as any;
  t.same(body, {
    error: { message: body.error.message, type: 'server_error', param: null, code: 'no_deployment_available' },
  });
  t.equal(res.headers.get('x-svc-model-group'), 'primary');
  t.same(
    attemptsOf(res).sort((x, y) => x.d.localeCompare(y.d)),
    [
      { d: 'p1', o: 'benched', ms: 0 },
      { d: 'p2', o: 'benched', ms: 0 },
    ],
  );
  t.equal(up.requests.length, 2, 'no further upstream calls');
});

t.test('weight 0 and key-less deployments are never chosen', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(
    t,
    configWith(
      [
        { name: 'zero', deployments: [{ id: 'z', provider: 'mock', model: 'mock-z', weight: 0 }] },
        {
          name: 'keyless',
          deployments: [
            openaiDeployment('k', up.url, { api_key: '' }),
            { id: 'az', provider: 'azure', base_url: up.url, deployment: 'mini', api_version: '2024-10-21' },
          ],
        },
        {
          name: 'mixed',
          deployments: [
            { id: 'off', provider: 'mock', model: 'mock-off', weight: 0 },
            { id: 'on', provider: 'mock', model: 'mock-on', weight: 1 },
            openaiDeployment('nokey', up.url, { api_key: '' }),
          ],
        },
      ],
      {},
      ['zero', 'keyless', 'mixed'],
    ),
  );
  for (const group of ['zero', 'keyless']) {
    const res = await chat(gatewayUrl, group);
    t.equal(res.status, 503, `${group}: 503`);
    const body = (await res.json()) as any;
    t.same(body, {
      error: { message: body.error.message, type: 'server_error', param: null, code: 'no_deployment_available' },
    });
    t.match(body.error.message, group);
    t.equal(res.headers.get('x-svc-model-group'), group);
    t.equal(res.headers.get('x-svc-attempts'), null, 'no attempt was made');
    t.equal(res.headers.get('x-svc-deployment'), null);
  }
  for (let i = 0; i < 20; i++) {
    const res = await chat(gatewayUrl, 'mixed');
    t.equal(res.headers.get('x-svc-deployment'), 'on');
  }
  t.equal(up.requests.length, 0, 'the key-less deployments were never called');
});

t.test('the weighted choice roughly honours the weights', async (t) => {
  const { gatewayUrl } = await startTestService(
    t,
    configWith([
      {
        name: 'w',
        deployments: [
          { id: 'heavy', provider: 'mock', model: 'm-heavy', weight: 3 },
          { id: 'light', provider: 'mock', model: 'm-light', weight: 1 },
        ],
      },
    ]),
  );
  const counts: Record<string, number> = { heavy: 0, light: 0 };
  for (let batch = 0; batch < 10; batch++) {
    const results = await Promise.all(Array.from({ length: 20 }, () => chat(gatewayUrl, 'w')));
    for (const res of results) {
      t.equal(res.status, 200);
      counts[res.headers.get('x-svc-deployment')!]++;
      await res.arrayBuffer();
    }
  }
  t.equal(counts.heavy + counts.light, 200);
  // Expected 150 : 50; the standard deviation is about 6, so these bounds are more than 4 sigma wide.
  t.ok(counts.heavy >= 120 && counts.heavy <= 180, `heavy served ${counts.heavy} of 200`);
});

t.test('x-svc-attempts records have the shape {d, o, ms, st?, why?}', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(
    t,
    configWith([
      {
        name: 'g',
        routing: { retries: 1, bench_ms: 0 },
        deployments: [openaiDeployment('a', up.url), openaiDeployment('b', up.url)],
      },
    ]),
  );
  up.queue.push({
    type: 'error',
    status: 502,
    envelope: { error: { message: 'bad gateway über', type: 'server_error', param: null, code: null } },
  });
  const res = await chat(gatewayUrl, 'g');
  t.equal(res.status, 200);
  const raw = res.headers.get('x-svc-attempts')!;
  t.match(raw, /\\u00fc/, 'non-ASCII in why is escaped so the header stays ASCII');
  const attempts = attemptsOf(res);
  t.equal(attempts.length, 2);
  const [failed, ok] = attempts;
  t.same(Object.keys(failed).sort(), ['d', 'ms', 'o', 'st', 'why']);
  t.same(failed, { d: failed.d, o: 'retryable', ms: failed.ms, st: 502, why: 'bad gateway über' });
  t.same(Object.keys(ok).sort(), ['d', 'ms', 'o']);
  for (const a of attempts) {
    t.ok(Number.isInteger(a.ms) && a.ms >= 0, 'ms is a non-negative integer');
    t.ok(['a', 'b'].includes(a.d));
  }
});

t.test('the upstream receives the deployment model, its key and the client fields', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(
    t,
    configWith([{ name: 'g', deployments: [openaiDeployment('a', up.url, { headers: { 'x-extra': 'yes' } })] }]),
  );
  const res = await chat(gatewayUrl, 'g', {
    temperature: 0.2,
    max_tokens: 33,
    user: 'u-1',
    tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
  });
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-svc-deployment'), 'a');
  t.equal(up.requests.length, 1);
  const [r] = up.requests;
  t.equal(r.method, 'POST');
  t.equal(r.path, '/v1/chat/completions');
  t.equal(r.headers.authorization, 'Bearer upstream-key-a', "the deployment's key, never the gateway key");
  t.notOk(JSON.stringify(r.headers).includes(TEST_KEY));
  t.equal(r.headers['x-extra'], 'yes', 'deployment headers are sent');
  t.match(r.headers['content-type'], /^application\/json/);
  t.same(r.body, {
    model: 'model-a',
    messages: [{ role: 'user', content: 'Hello' }],
    temperature: 0.2,
    max_tokens: 33,
    user: 'u-1',
    tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
  });
  t.notOk('stream_options' in r.body, 'no stream_options on a non-streamed call');
  const body = (await res.json()) as any;
  t.equal(body.usage.total_tokens, 15, "the provider's usage passes through");
});

t.test('Azure deployments use the deployment path, api-version and the api-key header', async (t) => {
  const up = await fake(t);
  const azure = {
    id: 'az',
    provider: 'azure',
    base_url: up.url,
    deployment: 'mini',
    api_version: '2024-10-21',
    api_key: 'azure-secret',
    price: { input_per_mtok: 1, output_per_mtok: 2 },
  };
  const { gatewayUrl } = await startTestService(
    t,
    configWith(
      [
        { name: 'az', deployments: [azure] },
        { name: 'az-model', deployments: [{ ...azure, id: 'az2', model: 'gpt-4o-mini' }] },
      ],
      {},
      ['az', 'az-model'],
    ),
  );
  const res = await chat(gatewayUrl, 'az');
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-svc-deployment'), 'az');
  t.equal(res.headers.get('x-svc-cost'), '0.00002', '10 input and 5 output tokens at 1 and 2 USD per Mtok');
  const [r] = up.requests;
  t.equal(r.path, '/openai/deployments/mini/chat/completions?api-version=2024-10-21');
  t.equal(r.headers['api-key'], 'azure-secret');
  t.equal(r.headers.authorization, undefined, 'no Authorization header to Azure');
  t.notOk('model' in r.body, 'no model is sent when the deployment configures none');

  const withModel = await chat(gatewayUrl, 'az-model');
  t.equal(withModel.status, 200);
  t.equal(up.requests[1].body.model, 'gpt-4o-mini');

  const emb = await postJson(gatewayUrl, '/v1/embeddings', { model: 'az', input: ['one', 'two'] });
  t.equal(emb.status, 200);
  const embBody = (await emb.json()) as any;
  t.equal(embBody.data.length, 2);
  t.same(embBody.data[1].embedding, [0.5, -0.25, 0.125]);
  t.equal(up.requests[2].path, '/openai/deployments/mini/embeddings?api-version=2024-10-21');
  t.equal(up.requests[2].headers['api-key'], 'azure-secret');
  t.same(up.requests[2].body, { input: ['one', 'two'] });
});

t.test('embeddings are routed to OpenAI deployments and priced on input tokens', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(
    t,
    configWith([
      {
        name: 'emb',
        routing: { retries: 1, bench_ms: 0 },
        deployments: [
          openaiDeployment('e1', up.url, { price: { input_per_mtok: 0.02, output_per_mtok: 0 } }),
          openaiDeployment('e2', up.url, { price: { input_per_mtok: 0.02, output_per_mtok: 0 } }),
        ],
      },
    ]),
  );
  const res = await postJson(gatewayUrl, '/v1/embeddings', {
    model: 'emb',
    input: 'hello world',
    encoding_format: 'float',
  });
  t.equal(res.status, 200);
  const body = (await res.json()) as any;
  t.same(body, {
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding: [0.5, -0.25, 0.125] }],
    model: 'fake-embed',
    usage: { prompt_tokens: 10, total_tokens: 10 },
  });
  const d = res.headers.get('x-svc-deployment')!;
  t.equal(up.requests[0].path, '/v1/embeddings');
  t.same(up.requests[0].body, { model: `model-${d}`, input: 'hello world', encoding_format: 'float' });
  t.equal(up.requests[0].headers.authorization, `Bearer upstream-key-${d}`);
  t.equal(res.headers.get('x-svc-cost'), '0.0000002', '10 input tokens at 0.02 USD per Mtok');
  t.equal(res.headers.get('x-svc-cost-estimated'), 'false');

  // Embeddings follow the same retry rules.
  up.queue.push({ type: 'error', status: 500 });
  const retried = await postJson(gatewayUrl, '/v1/embeddings', { model: 'emb', input: ['a', 'b'] });
  t.equal(retried.status, 200);
  matchAttempts(t, retried, [{ o: 'retryable', st: 500 }, { o: 'ok' }]);
  t.equal(((await retried.json()) as any).data.length, 2);
});

t.test('a group whose deployments offer no embeddings API answers 400 embeddings_not_supported', async (t) => {
  const up = await fake(t);
  const { gatewayUrl } = await startTestService(
    t,
    configWith(
      [
        { name: 'chat-only', deployments: [openaiDeployment('c1', up.url, { embeddings: false })] },
        {
          name: 'mixed',
          deployments: [openaiDeployment('m1', up.url, { embeddings: false }), openaiDeployment('m2', up.url)],
        },
      ],
      {},
      ['chat-only', 'mixed'],
    ),
  );
  const res = await postJson(gatewayUrl, '/v1/embeddings', { model: 'chat-only', input: 'hello' });
  t.equal(res.status, 400);
  t.same(await res.json(), {
    error: {
      message: "No deployment in model group 'chat-only' offers an embeddings API.",
      type: 'invalid_request_error',
      param: null,
      code: 'embeddings_not_supported',
    },
  });
  t.ok(res.headers.get('x-svc-request-id'));
  t.equal(res.headers.get('x-svc-model-group'), 'chat-only');
  t.equal(up.requests.length, 0, 'nothing was sent upstream');

  // Chat on the same group still works; in a mixed group embeddings go only where they are offered.
  t.equal((await chat(gatewayUrl, 'chat-only')).status, 200);
  for (let i = 0; i < 5; i++) {
    const emb = await postJson(gatewayUrl, '/v1/embeddings', { model: 'mixed', input: 'hello' });
    t.equal(emb.status, 200);
    t.equal(emb.headers.get('x-svc-deployment'), 'm2');
  }
});

t.test("the provider's JSON text passes through byte for byte unless a plugin with onResponse took part", async (t) => {
  const text =
    '{ "id": "chatcmpl-raw",\n  "object": "chat.completion", "created": 1, "model": "m",\n  "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 0, "total_tokens": 3} }';
  const up = await fake(t, { type: 'invalid-json', text });
  const { gatewayUrl } = await startTestService(
    t,
    configWith([{ name: 'g', deployments: [openaiDeployment('a', up.url)] }]),
  );
  const res = await chat(gatewayUrl, 'g');
  t.equal(res.status, 200);
  t.equal(await res.text(), text);

  const dir = mkdtempSync(join(tmpdir(), 'svc-raw-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const plugin = join(dir, 'annotate.mjs');
  writeFileSync(
    plugin,
    `export default { apiVersion: 1, name: 'annotate', setup() { return { onResponse(ctx, r) { if (r.kind === 'json') r.body.note = 'seen'; } }; } };\n`,
  );
  const withPlugin = configWith([{ name: 'g', deployments: [openaiDeployment('a', up.url)] }]);
  withPlugin.plugins = [{ use: 'auth' }, { use: plugin }, { use: 'router' }];
  const svc2 = await startTestService(t, withPlugin);
  const changed = (await (await chat(svc2.gatewayUrl, 'g')).json()) as any;
  t.equal(changed.note, 'seen', 'an in-place change by onResponse reaches the client');
  t.equal(changed.id, 'chatcmpl-raw');
});

t.test('embeddings ignore stream: true: the embeddings API answers as JSON, priced on its input tokens', async (t) => {
  const up = await fake(t);
  // An output price that a chat estimate would charge: embeddings must not be priced with one.
  const price = { input_per_mtok: 0.02, output_per_mtok: 10 };
  const { gatewayUrl } = await startTestService(
    t,
    configWith([{ name: 'emb', deployments: [openaiDeployment('e1', up.url, { price })] }]),
  );
  const res = await postJson(gatewayUrl, '/v1/embeddings', {
    model: 'emb',
    input: 'hello world',
    stream: true,
    stream_options: { include_usage: true },
  });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/, 'a JSON answer, not server-sent events');
  t.same(await res.json(), {
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding: [0.5, -0.25, 0.125] }],
    model: 'fake-embed',
    usage: { prompt_tokens: 10, total_tokens: 10 },
  });
  t.equal(up.requests.length, 1);
  t.equal(up.requests[0].path, '/v1/embeddings', 'the embeddings API was called, not chat completions');
  t.same(up.requests[0].body, { model: 'model-e1', input: 'hello world' }, 'the provider was not asked to stream');
  t.equal(res.headers.get('x-svc-cost'), '0.0000002', "the provider's 10 input tokens at 0.02 USD per Mtok");
  t.equal(res.headers.get('x-svc-cost-estimated'), 'false');
  matchAttempts(t, res, [{ d: 'e1', o: 'ok' }]);
});

t.test(
  'x-svc-deployment names the last deployment tried on every failure after a provider attempt, streamed or not',
  async (t) => {
    const up = await fake(t);
    const { gatewayUrl } = await startTestService(
      t,
      configWith(
        [
          {
            name: 'g',
            fallback: 'spare',
            routing: { retries: 1, bench_ms: 0, timeout_ms: 150, max_backoff_ms: 10 },
            deployments: [openaiDeployment('a', up.url), openaiDeployment('b', up.url)],
          },
          { name: 'spare', routing: { retries: 0, timeout_ms: 150 }, deployments: [openaiDeployment('s', up.url)] },
        ],
        { backoff_base_ms: 1 },
      ),
    );
    const refusal = {
      error: {
        message: "Invalid value for 'temperature'",
        type: 'invalid_request_error',
        param: 'temperature',
        code: 'invalid_value',
      },
    };
    const overloaded = {
      error: { message: 'The server is overloaded', type: 'server_error', param: null, code: 'overloaded' },
    };
    const cases: { label: string; behaviour: Behaviour; status: number; code: string; attempts: number }[] = [
      {
        label: 'a provider 400, passed through at once',
        behaviour: { type: 'error', status: 400, envelope: refusal },
        status: 400,
        code: 'invalid_value',
        attempts: 1,
      },
      {
        label: 'provider 503s, the last passed through',
        behaviour: { type: 'error', status: 503, envelope: overloaded },
        status: 503,
        code: 'overloaded',
        attempts: 3,
      },
      {
        label: 'connection resets',
        behaviour: { type: 'reset' },
        status: 502,
        code: 'upstream_unreachable',
        attempts: 3,
      },
      {
        label: 'a 2xx body that is not JSON',
        behaviour: { type: 'invalid-json' },
        status: 502,
        code: 'upstream_invalid_response',
        attempts: 3,
      },
      {
        label: 'providers that do not answer',
        behaviour: { type: 'hang' },
        status: 504,
        code: 'upstream_timeout',
        attempts: 3,
      },
    ];
    for (const stream of [false, true]) {
      for (const c of cases) {
        const label = `${stream ? 'streamed' : 'not streamed'}, ${c.label}`;
        up.fallback = c.behaviour;
        const before = up.requests.length;
        const res = await chat(gatewayUrl, 'g', { stream });
        t.equal(res.status, c.status, `${label}: ${c.status}`);
        const body = (await res.json()) as any;
        t.equal(body.error.code, c.code, `${label}: ${c.code}`);
        const attempts = attemptsOf(res);
        t.equal(attempts.length, c.attempts, `${label}: ${c.attempts} attempt(s)`);
        const last = attempts.at(-1)!.d;
        t.equal(
          res.headers.get('x-svc-deployment'),
          last,
          `${label}: x-svc-deployment is the last deployment tried (${last})`,
        );
        t.equal(up.requests.at(-1)!.body.model, `model-${last}`, `${label}: the last request upstream went to it`);
        t.equal(up.requests.length - before, c.attempts);
        t.equal(res.headers.get('x-svc-model-group'), c.attempts === 1 ? 'g' : 'spare');
      }
    }
  },
);
