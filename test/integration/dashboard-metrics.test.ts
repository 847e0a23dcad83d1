// Dashboard metrics (docs/dashboard.md "Metrics", docs/dashboard-metrics.md) on both store backends, with real gateway
// traffic through mock model groups: two agents on minted keys and a key without agent, a refusal, a cache hit and a
// fallback. The charts' totals equal sums over the stored traces (requests, errors, tokens, cost, latency percentiles
// within the histogram's bound); groupBy and filters; the bucket size of every window and of custom ranges; the
// gateway panels; bad parameters 400; no session and API keys 401. The window the pages open on, as traffic ages.
import t from 'tap';
import { RELATIVE_ERROR } from '../../src/platform/telemetry/latency-histogram.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { addAgent } from '../../src/platform/store/repos/agents.ts';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { dashboardRequest, signIn, type DashboardClient } from '../helpers/dashboard.ts';
import { basicAuth } from '../helpers/public-api.ts';
import { baseConfig, chatBody, startTestService, TEST_KEY, type TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';
import { waitFor } from '../helpers/wait-for.ts';

const P = '/projects/default';
const PRICE = { input_per_mtok: 1, output_per_mtok: 2 };
const error = (code: string) => ({ error: { code, message: String } });

const config = () =>
  baseConfig({
    model_groups: [
      {
        name: 'demo',
        created_at: '2026-11-21T00:00:00Z',
        deployments: [{ id: 'demo-mock', provider: 'mock', model: 'mock-small', price: PRICE }],
      },
      // Always too slow: the attempt times out, the deployment is benched and the request falls back to demo.
      {
        name: 'slow',
        created_at: '2026-11-21T00:00:00Z',
        fallback: 'demo',
        routing: { retries: 0, timeout_ms: 50, bench_ms: 600_000 },
        deployments: [
          { id: 'slow-mock', provider: 'mock', model: 'mock-slow', price: PRICE, mock: { latency_ms: 5_000 } },
        ],
      },
    ],
    keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['demo', 'slow'] }],
    plugins: [{ use: 'auth' }, { use: 'cache' }, { use: 'router' }, { use: 'tracing' }],
  });

const chat = (s: TestService, key: string, body: Record<string, unknown>) =>
  fetch(`${s.gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(chatBody(body)),
  });

const say = (text: string, model = 'demo') => ({ model, messages: [{ role: 'user', content: text }] });

async function mint(s: TestService, projectKey: string, agentId: string, modelGroups: string[]): Promise<string> {
  const res = await fetch(`${s.adminUrl}/api/public/v1/gateway/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: projectKey },
    body: JSON.stringify({ agentId, modelGroups, expiresInHours: 1 }),
  });
  const body = (await res.json()) as { key: string };
  if (res.status !== 201 && res.status !== 200)
    throw new Error(`minting answered ${res.status}: ${JSON.stringify(body)}`);
  return body.key;
}

const exactPercentile = (sorted: number[], p: number) => sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];
const withinBound = (value: number, exact: number) =>
  exact < 1 ? Math.abs(value - exact) <= 0.5 : Math.abs(value - exact) / exact <= RELATIVE_ERROR + 1e-9;

for (const backend of STORE_BACKENDS) {
  t.test(`dashboard metrics on ${backend}`, async (t) => {
    const s = await startTestService(t, config(), { backend });
    const db = s.service.db;
    await addAgent(db, { id: 'agent-a', projectId: 'default', name: 'Agent A' });
    await addAgent(db, { id: 'agent-b', projectId: 'default', name: 'Agent B' });
    const projectKey = await createApiKey(db, {
      kind: 'project',
      organizationId: 'default',
      projectId: 'default',
      now: Date.now(),
    });
    const keyA = await mint(s, basicAuth(projectKey), 'agent-a', ['demo', 'slow']);
    const keyB = await mint(s, basicAuth(projectKey), 'agent-b', ['demo']);

    // The mix: agent-a 3 served + 1 fallback; agent-b 2 served, 1 cache hit, 1 refusal; the unbound key 1 served.
    const answers: number[] = [];
    for (let i = 0; i < 3; i++) answers.push((await chat(s, keyA, say(`a${i}`))).status);
    answers.push((await chat(s, keyA, say('fall back', 'slow'))).status);
    for (let i = 0; i < 2; i++) answers.push((await chat(s, keyB, say(`b${i}`))).status);
    answers.push((await chat(s, keyB, say('a0'))).status);
    answers.push((await chat(s, keyB, say('not granted', 'slow'))).status);
    answers.push((await chat(s, TEST_KEY, say('no agent'))).status);
    t.same(answers, [200, 200, 200, 200, 200, 200, 200, 403, 200], 'the gateway answered the mix');
    await waitFor(
      '9 traces stored',
      async () =>
        Number(
          (await db.query<{ n: unknown }>(`SELECT count(*) AS n FROM traces WHERE project_id = 'default'`)).rows[0].n,
        ) === 9,
    );
    // Rollups are written about once a second; no need to wait for it.
    await s.service.traceWriter!.flushRollups();

    const stored = (
      await db.query<
        Record<string, any>
      >(`SELECT t.id, t.status, COALESCE(t.agent_id, '') AS agent, t.model_group, t.deployment, t.error_code, t.cache_hit,
          t.metadata, (extract(epoch FROM t.end_time - t.start_time) * 1000)::float8 AS ms,
          COALESCE((SELECT sum(o.total_tokens) FROM observations o WHERE o.project_id = t.project_id AND o.trace_id = t.id AND o.type = 'GENERATION'), 0) AS tokens,
          COALESCE((SELECT sum(o.total_cost) FROM observations o WHERE o.project_id = t.project_id AND o.trace_id = t.id AND o.type = 'GENERATION'), 0) AS cost
        FROM traces t WHERE t.project_id = 'default'`)
    ).rows;
    const sum = (rows: Record<string, any>[], f: (r: Record<string, any>) => number) =>
      rows.reduce((n, r) => n + f(r), 0);
    const expected = (rows: Record<string, any>[]) => ({
      requests: rows.length,
      errors: rows.filter((r) => r.status === 'error').length,
      tokens: sum(rows, (r) => Number(r.tokens)),
      cost: sum(rows, (r) => Number(r.cost)),
    });

    const owner = await signIn(s, 'owner@localhost', s.service.firstOwner!.password);
    const created = await owner.call('POST', '/users', { email: 'viewer@example.com', role: 'viewer' });
    const viewer: DashboardClient = await signIn(s, 'viewer@example.com', created.body.password);
    const get = (path: string) => viewer.call('GET', path);

    t.test('totals equal the sums over the stored traces', async (t) => {
      const r = await get(`${P}/metrics?window=1h`);
      t.equal(r.status, 200);
      const all = expected(stored);
      t.equal(all.errors, 1, 'one error among the traces (the refusal)');
      t.ok(all.tokens > 0 && all.cost > 0, 'the traces have tokens and cost');
      const totals = r.body.totals;
      t.match(totals, { requests: 9, errors: 1, token_count: all.tokens }, 'requests, errors, tokens');
      t.ok(Math.abs(totals.cost - all.cost) < 1e-9 * 9, `cost ${totals.cost} = ${all.cost}`);
      t.equal(totals.error_rate, (1 / 9) * 100, 'error_rate in percent');
      t.equal(totals.throughput, 9 / 3600, 'throughput: requests per second over the window');
      const durations = stored.map((row) => Number(row.ms)).sort((a, b) => a - b);
      for (const p of [50, 95, 99]) {
        const exact = exactPercentile(durations, p);
        t.ok(
          withinBound(totals[`latency_p${p}`], exact),
          `latency_p${p} ${totals[`latency_p${p}`]} ms against exact ${exact} ms`,
        );
      }
      t.equal(r.body.series.length, 1, 'without groupBy: one series');
      t.equal(r.body.series[0].key, 'all');
      t.same(r.body.series[0].totals, totals, 'whose totals are the totals');
      const points = r.body.series[0].points;
      t.equal(
        sum(points, (p: any) => p.requests),
        9,
        'the points add up to the totals',
      );
      const busy = points.filter((p: any) => p.requests > 0);
      t.ok(
        busy.every((p: any) => p.throughput === p.requests / 60),
        'a point’s throughput is per second of its minute',
      );
      t.ok(
        points.filter((p: any) => p.requests === 0).every((p: any) => p.latency_p50 === null && p.error_rate === 0),
        'empty points: no latency, no error rate',
      );
    });

    t.test('groupBy agent, model_group and deployment; agent and modelGroup filters', async (t) => {
      for (const [groupBy, column] of [
        ['agent', 'agent'],
        ['model_group', 'model_group'],
        ['deployment', 'deployment'],
      ] as const) {
        const r = await get(`${P}/metrics?window=1h&groupBy=${groupBy}`);
        t.equal(r.status, 200);
        const keys = [...new Set(stored.map((row) => row[column] ?? ''))].sort();
        t.same(
          r.body.series.map((x: any) => x.key),
          keys,
          `${groupBy}: one series per ${column}`,
        );
        for (const series of r.body.series) {
          const e = expected(stored.filter((row) => (row[column] ?? '') === series.key));
          t.match(
            series.totals,
            { requests: e.requests, errors: e.errors, token_count: e.tokens },
            `${groupBy} ${JSON.stringify(series.key)}`,
          );
        }
        t.equal(r.body.totals.requests, 9, `${groupBy}: the totals are over every series`);
      }
      const byAgent = (await get(`${P}/metrics?window=1h&groupBy=agent`)).body.series;
      t.same(
        byAgent.map((x: any) => [x.key, x.totals.requests]),
        [
          ['', 1],
          ['agent-a', 4],
          ['agent-b', 4],
        ],
        'requests per agent',
      );
      t.match(
        (await get(`${P}/metrics?window=1h&agent=agent-a`)).body.totals,
        { requests: 4, errors: 0 },
        'agent filter by id',
      );
      t.match(
        (await get(`${P}/metrics?window=1h&agent=${encodeURIComponent('Agent B')}`)).body.totals,
        { requests: 4, errors: 1 },
        'agent filter by name',
      );
      const demo = expected(stored.filter((row) => row.model_group === 'demo'));
      t.match(
        (await get(`${P}/metrics?window=1h&modelGroup=demo`)).body.totals,
        { requests: demo.requests, token_count: demo.tokens },
        'modelGroup filter',
      );
      t.match(
        (await get(`${P}/metrics?window=1h&agent=nobody`)).body,
        { totals: { requests: 0, latency_p50: null }, series: [{ key: 'all' }] },
        'a filter matching nothing',
      );
    });

    t.test('groupBy cost_component: the cost chart split by price component', async (t) => {
      const byComponent = (
        await db.query<{ k: string; usd: unknown }>(
          `SELECT e.key AS k, sum(e.value::numeric) AS usd FROM observations o, jsonb_each_text(o.cost_details) e
           WHERE o.project_id = 'default' AND o.type = 'GENERATION' AND e.key <> 'total' GROUP BY e.key ORDER BY e.key`,
        )
      ).rows;
      t.same(
        byComponent.map((row) => row.k),
        ['input', 'output'],
        'the mock reports plain input and output',
      );
      const r = await get(`${P}/metrics?window=1h&groupBy=cost_component`);
      t.equal(r.status, 200);
      t.same(
        r.body.series.map((x: any) => x.key),
        ['input', 'output'],
        'one series per component',
      );
      for (const [i, series] of r.body.series.entries()) {
        const usd = Number(byComponent[i].usd);
        t.ok(usd > 0 && Math.abs(series.totals.cost - usd) < 1e-9 * 9, `${series.key}: ${series.totals.cost} = ${usd}`);
        t.equal(sum(series.points, (p: any) => p.cost).toFixed(9), series.totals.cost.toFixed(9), 'its points add up');
      }
      t.ok(
        Math.abs(r.body.totals.cost - expected(stored).cost) < 1e-9 * 9,
        'the components add up to the cost of the traffic',
      );
      const agentA = await get(`${P}/metrics?window=1h&groupBy=cost_component&agent=agent-a`);
      const costA = expected(stored.filter((row) => row.agent === 'agent-a')).cost;
      t.ok(Math.abs(agentA.body.totals.cost - costA) < 1e-9 * 9, 'filters apply to the split');
    });

    t.test('bucket sizes: each window and custom ranges', async (t) => {
      for (const [window, bucketSeconds, buckets] of [
        ['1h', 60, 60],
        ['24h', 900, 96],
        ['7d', 3600, 168],
        ['30d', 21_600, 120],
      ] as const) {
        const r = await get(`${P}/metrics?window=${window}`);
        t.equal(r.body.bucketSeconds, bucketSeconds, `${window}: buckets of ${bucketSeconds} s`);
        t.equal(r.body.series[0].points.length, buckets, `${window}: ${buckets} points`);
        t.equal(
          Date.parse(r.body.to) - Date.parse(r.body.from),
          buckets * bucketSeconds * 1000,
          `${window}: from and to span the buckets`,
        );
        t.equal(Date.parse(r.body.from) % (bucketSeconds * 1000), 0, `${window}: aligned to the bucket size`);
        t.ok(Date.parse(r.body.to) > Date.now() - 1000, `${window}: the last bucket holds now`);
        t.equal(r.body.totals.requests, 9, `${window}: every request counted`);
        t.equal(r.body.series[0].points[0].t, r.body.from, `${window}: points start at from`);
      }
      const now = Date.now();
      const custom = async (fromMs: number, toMs: number) =>
        (await get(`${P}/metrics?from=${new Date(fromMs).toISOString()}&to=${new Date(toMs).toISOString()}`)).body;
      const h = 3_600_000;
      const twoHours = await custom(now - 2 * h, now + 60_000);
      t.match(twoHours, { bucketSeconds: 60, totals: { requests: 9 } }, 'two hours: 1-minute buckets');
      t.ok(
        twoHours.series[0].points.length <= 240 && twoHours.series[0].points.length >= 121,
        'two hours: 121–240 points',
      );
      t.equal((await custom(now - 50 * h, now)).bucketSeconds, 900, '50 hours: 15-minute buckets (200)');
      t.equal((await custom(now - 72 * h, now)).bucketSeconds, 3600, '3 days: 1-hour buckets (15 min would give 288)');
      t.equal((await custom(now - 20 * 24 * h, now)).bucketSeconds, 21_600, '20 days: 6-hour buckets');
      const before = await custom(now - 48 * h, now - 24 * h);
      t.match(before, { totals: { requests: 0 } }, 'a range before the traffic counts nothing');
      const exact = await custom(Date.parse('2026-11-20T00:00:00Z'), Date.parse('2026-11-20T04:00:00Z'));
      t.match(
        exact,
        { from: '2026-11-20T00:00:00.000Z', to: '2026-11-20T04:00:00.000Z', bucketSeconds: 60 },
        'aligned bounds are kept',
      );
      t.equal(exact.series[0].points.length, 240, 'four hours: 240 one-minute points');
      const ragged = await custom(Date.parse('2026-11-20T00:00:30Z'), Date.parse('2026-11-20T01:59:10Z'));
      t.match(
        ragged,
        { from: '2026-11-20T00:00:00.000Z', to: '2026-11-20T02:00:00.000Z' },
        'other bounds widen to whole buckets',
      );
    });

    t.test('gateway panels: refusals by code, cache, fallbacks, benched deployments', async (t) => {
      const r = await get(`${P}/gateway-panels?window=1h`);
      t.equal(r.status, 200);
      const lookups = stored.filter((row) =>
        ['hit', 'miss', 'unavailable'].includes(row.metadata['gateway.cache']),
      ).length;
      t.ok(lookups >= 7, `${lookups} cache lookups`);
      t.same(r.body.refusals, [{ code: 'model_not_allowed', count: 1 }]);
      t.same(r.body.cache, { hits: 1, lookups, hitRate: (1 / lookups) * 100 });
      t.equal(r.body.fallbacks, 1);
      t.match(r.body.benched, [{ modelGroup: 'slow', deployment: 'slow-mock', until: String }]);
      t.equal(r.body.benched.length, 1);
      t.ok(Date.parse(r.body.benched[0].until) > Date.now(), 'benched until a time to come');
      const month = (await get(`${P}/gateway-panels?window=30d`)).body;
      t.same(
        [month.refusals, month.cache, month.fallbacks],
        [r.body.refusals, r.body.cache, r.body.fallbacks],
        '30d counts the same',
      );
      const before = (await get(`${P}/gateway-panels?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z`)).body;
      t.same(
        [before.refusals, before.cache, before.fallbacks],
        [[], { hits: 0, lookups: 0, hitRate: 0 }, 0],
        'a range without traffic',
      );
    });

    t.test('bad parameters are 400 invalid_request', async (t) => {
      const bad = [
        'window=2h',
        'window=',
        'groupBy=user',
        'groupBy=agent&window=5m',
        'from=2026-11-20T00:00:00Z',
        'to=2026-11-20T00:00:00Z',
        'from=yesterday&to=2026-11-20T00:00:00Z',
        'from=2026-11-21T00:00:00Z&to=2026-11-20T00:00:00Z',
        'from=2026-11-20T00:00:00Z&to=2026-11-20T00:00:00Z',
        'window=1h&from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z',
        'from=2026-01-01T00:00:00Z&to=2026-03-15T00:00:00Z',
        'agent=',
        'modelGroup=',
      ];
      for (const q of bad)
        t.match(await get(`${P}/metrics?${q}`), { status: 400, body: error('invalid_request') }, `metrics?${q}`);
      for (const q of [
        'window=90d',
        'from=2026-11-20T00:00:00Z',
        'from=2026-11-21T00:00:00Z&to=2026-11-20T00:00:00Z',
      ]) {
        t.match(
          await get(`${P}/gateway-panels?${q}`),
          { status: 400, body: error('invalid_request') },
          `gateway-panels?${q}`,
        );
      }
      t.match(
        await get('/projects/nope/metrics?window=1h'),
        { status: 404, body: error('not_found') },
        'an unknown project is 404',
      );
      t.match(await get(`${P}/metrics`), { status: 200, body: { bucketSeconds: 900 } }, 'no window: the last 24 hours');
    });

    t.test('no session and API keys are 401; a signed-out session too', async (t) => {
      const foreign: [string, Record<string, string>][] = [
        ['no credentials', {}],
        ['Basic public-API key', { authorization: basicAuth(projectKey) }],
        ['REST Bearer key', { authorization: `Bearer ${projectKey.secretKey}` }],
        ['gateway key', { authorization: `Bearer ${TEST_KEY}` }],
        ['a made-up cookie', { cookie: 'svc_session=not-a-session' }],
      ];
      for (const path of [`${P}/metrics?window=1h`, `${P}/gateway-panels?window=1h`]) {
        for (const [what, headers] of foreign)
          t.match(
            await dashboardRequest(s, 'GET', path, headers),
            { status: 401, body: error('unauthenticated') },
            `${path}: ${what}`,
          );
      }
      const gone = await signIn(s, 'viewer@example.com', created.body.password);
      t.equal((await gone.call('DELETE', '/session')).status, 204);
      t.match(
        await gone.call('GET', `${P}/metrics?window=1h`),
        { status: 401, body: error('unauthenticated') },
        'after sign-out',
      );
    });
  });
}

t.test('the window the metrics pages open on holds the traffic there is', async (t) => {
  const HOUR = 3_600_000;
  let offsetMs = 0;
  const clock = { now: () => Date.now() + offsetMs, sleep: systemClock.sleep };
  const s = await startTestService(t, config(), { clock });
  const owner = await signIn(s, 'owner@localhost', s.service.firstOwner!.password);
  const opening = async () => (await owner.call('GET', `${P}/metrics/default-window`)).body;
  let sent = 0;
  /** One request `ago` ms in the past, then the window once its rollup is stored. */
  async function trafficAt(ago: number, expected: string) {
    offsetMs = -ago;
    t.equal((await chat(s, TEST_KEY, say(`request ${sent++}`))).status, 200);
    offsetMs = 0;
    return waitFor(`window ${expected}`, async () => {
      await s.service.traceWriter!.flushRollups();
      const w = await opening();
      return w.window === expected && w;
    });
  }
  t.same(
    await opening(),
    { window: '1h', oldestTrafficOfLastDay: null, newestTraffic: null },
    'no traffic yet: the last hour, where the first requests will show',
  );
  t.match(
    await trafficAt(10 * 24 * HOUR, '30d'),
    { oldestTrafficOfLastDay: null, newestTraffic: String },
    'only traffic of 10 days ago: 30 days',
  );
  t.match(
    await trafficAt(3 * 24 * HOUR, '7d'),
    { oldestTrafficOfLastDay: null },
    'the newest traffic 3 days old: 7 days',
  );
  const young = await trafficAt(20 * 60_000, '1h');
  // Within the hour the window shows: once in CI the oldest minute read back 21+ minutes old (not reproduced).
  const youngAge = Date.now() - Date.parse(young.oldestTrafficOfLastDay);
  t.ok(youngAge <= HOUR, `traffic of the last 20 minutes only: the last hour (oldest ${youngAge} ms ago)`);
  const day = await trafficAt(5 * HOUR, '24h');
  t.ok(
    Date.now() - Date.parse(day.oldestTrafficOfLastDay) >= 5 * HOUR - 60_000,
    'traffic 5 hours old too: 24 hours, which holds both',
  );
  t.match(await owner.call('GET', '/projects/nope/metrics/default-window'), { status: 404 });
  t.match(await dashboardRequest(s, 'GET', `${P}/metrics/default-window`), {
    status: 401,
    body: error('unauthenticated'),
  });
});
