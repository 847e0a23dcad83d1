// The gateway served by two threads of one process (server.workers / --workers): every connection below is new, so
// the kernel spreads them over both threads' sockets on the shared port. A key's per-minute limit admits exactly the
// limit across the threads, with the in-process counters (shared memory) on the embedded store and with Redis on
// PostgreSQL; /metrics sums both threads; the response cache is one cache; a reload and a minted key reach every
// thread; SIGTERM drains every thread's requests in flight.
import { request } from 'node:http';
import t, { type Test } from 'tap';
import { addAgent } from '../../src/platform/store/repos/agents.ts';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { roomInMinute } from '../helpers/gateways.ts';
import { REDIS_URL, redisTestPrefix } from '../helpers/redis.ts';
import { baseConfig, chatBody, demoGroup, startTestService, TEST_KEY } from '../helpers/service.ts';
import { svcStart, LISTENING } from '../helpers/service-process.ts';
import { cleanEnv } from '../helpers/cli.ts';
import { waitFor } from '../helpers/wait-for.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on a connection of its own (no agent): the kernel picks the thread that accepts it. */
function onNewConnection(url: string, path: string, body?: unknown, key = TEST_KEY): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        agent: false,
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', connection: 'close' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (s: string) => (text += s));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** `n` requests, `width` at a time, each on a new connection. */
async function spread(n: number, width: number, call: (i: number) => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < n; i = next++) answers[i] = await call(i);
    }),
  );
  return answers;
}

const statusCount = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;

async function metricsJson(adminUrl: string): Promise<any> {
  return (await fetch(`${adminUrl}/metrics`)).json();
}

const modes = [
  { counters: 'in-process (shared memory), embedded store', backend: 'pglite' as const, store: () => ({}) },
  {
    counters: 'Redis, PostgreSQL',
    backend: 'postgres' as const,
    store: (t: Test) => ({ redis_url: REDIS_URL, redis_prefix: redisTestPrefix(t) }),
  },
];

for (const mode of modes) {
  t.test(`${mode.counters}: a key's rpm admits exactly the limit across two threads`, async (t) => {
    const RPM = 40;
    const { gatewayUrl, adminUrl } = await startTestService(
      t,
      baseConfig({
        keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['demo'], rpm: RPM }],
        plugins: [{ use: 'auth' }, { use: 'rate-limit' }, { use: 'router' }],
        store: mode.store(t),
      }),
      { backend: mode.backend, workers: 2 },
    );
    await roomInMinute(30);
    const answers = await spread(100, 20, () => onNewConnection(gatewayUrl, '/v1/chat/completions', chatBody()));
    t.equal(statusCount(answers, 200), RPM, 'exactly the limit served');
    t.equal(statusCount(answers, 429), 100 - RPM, 'every other request refused');
    const refused = JSON.parse(answers.find((a) => a.status === 429)!.body);
    t.equal(refused.error.code, 'rate_limit_exceeded');

    const metrics = await metricsJson(adminUrl);
    t.equal(metrics.gateway_threads.count, 2);
    t.equal(metrics.gateway_threads.requests.length, 2);
    t.equal(metrics.gateway_threads.heap_mb.length, 2);
    t.ok(
      metrics.gateway_threads.heap_mb.every((mb: number) => mb > 1 && mb < 1024),
      `each thread's heap in MB (${metrics.gateway_threads.heap_mb.join(' and ')})`,
    );
    t.ok(
      metrics.gateway_threads.requests.every((n: number) => n > 0),
      `both threads served requests (${metrics.gateway_threads.requests.join(' and ')})`,
    );
    t.equal(metrics.requests.total, 100, 'the JSON sums both threads');
    t.same(metrics.requests.by_status, { '200': RPM, '429': 100 - RPM });
    t.equal(metrics.latency_ms.window_requests, 100, 'percentiles over both threads’ windows');
    const text = await (await fetch(`${adminUrl}/metrics?format=prometheus`)).text();
    t.match(text, `svc_gateway_requests_total{route="chat",status="200"} ${RPM}\n`, 'Prometheus text sums too');
    t.match(text, `svc_gateway_requests_total{route="chat",status="429"} ${100 - RPM}\n`);
  });
}

t.test('one response cache, reload and minted keys reach every thread', async (t) => {
  const config = (groups: ReturnType<typeof demoGroup>[]) =>
    baseConfig({
      model_groups: groups,
      keys: [{ alias: 'test', key: TEST_KEY, project: 'default', model_groups: groups.map((g) => g.name) }],
      plugins: [{ use: 'auth' }, { use: 'cache' }, { use: 'router' }],
    });
  const second = { ...demoGroup({ id: 'second-mock' }), name: 'second' };
  const s = await startTestService(t, config([demoGroup()]), { workers: 2 });

  const cacheMe = chatBody({ messages: [{ role: 'user', content: 'cache me' }] });
  const first = await onNewConnection(s.gatewayUrl, '/v1/chat/completions', cacheMe);
  t.equal(first.headers['x-svc-cache'], undefined, 'the first answer comes from the provider');
  const cached = await spread(11, 4, () => onNewConnection(s.gatewayUrl, '/v1/chat/completions', cacheMe));
  t.same(
    cached.map((a) => [a.status, a.headers['x-svc-cache']]),
    new Array(11).fill([200, 'hit']),
    'every later one is a hit, whichever thread takes it',
  );
  t.ok(
    cached.every((a) => JSON.parse(a.body).id === JSON.parse(first.body).id),
    'the stored answer',
  );
  const threads = (await metricsJson(s.adminUrl)).gateway_threads.requests as number[];
  t.ok(
    threads.every((n) => n > 0),
    `both threads answered (${threads.join(' and ')})`,
  );

  s.writeConfig(config([demoGroup(), second]));
  t.same(await s.service.reload(), { ok: true });
  const models = await spread(10, 5, () => onNewConnection(s.gatewayUrl, '/v1/models'));
  t.ok(
    models.every((a) => a.status === 200 && JSON.parse(a.body).data.some((m: { id: string }) => m.id === 'second')),
    'every connection, whichever thread took it, lists the group the reload added',
  );

  const projectKey = await createApiKey(s.service.db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: Date.now(),
  });
  const agent = await addAgent(s.service.db, { projectId: 'default', name: 'threaded' });
  const minted = await fetch(`${s.adminUrl}/api/public/v1/gateway/keys`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${projectKey.publicKey}:${projectKey.secretKey}`).toString('base64')}`,
    },
    body: JSON.stringify({ agentId: agent.id, modelGroups: ['second'], expiresInHours: 1 }),
  });
  t.equal(minted.status, 201);
  const { key } = (await minted.json()) as { key: string };
  const uses = await spread(10, 5, () =>
    onNewConnection(s.gatewayUrl, '/v1/chat/completions', chatBody({ model: 'second' }), key),
  );
  t.same(
    uses.map((a) => a.status),
    new Array(10).fill(200),
    'the minted key works at once on every thread',
  );
});

t.test('SIGTERM drains the requests in flight on every thread, then the process exits 0', async (t) => {
  const s = await startTestService(t, baseConfig(), { workers: 1 });
  // The service above only provides a config file and a store; the process under test is the CLI's own.
  await s.service.stop();
  s.writeConfig(
    baseConfig({
      model_groups: [demoGroup({ mock: { latency_ms: 1500 } })],
      server: { host: '127.0.0.1', port: 0, admin_port: 0, drain_timeout_ms: 10_000 },
    }),
  );
  const p = svcStart(s.configPath, cleanEnv(), ['--workers', '2']);
  t.teardown(() => p.kill('SIGKILL'));
  const out = await p.waitFor(LISTENING.all);
  const { gateway, admin } = LISTENING.all.exec(out)!.groups!;
  const inFlight = Array.from({ length: 8 }, () => onNewConnection(gateway, '/v1/chat/completions', chatBody()));
  await waitFor('all 8 requests in flight', async () => (await metricsJson(admin)).requests.in_flight === 8);
  const perThread = (await metricsJson(admin)).gateway_threads.in_flight as number[];
  t.ok(
    perThread.every((n) => n > 0),
    `both threads hold requests (${perThread.join(' and ')})`,
  );
  const exited = p.stop();
  const answers = await Promise.all(inFlight);
  t.same(
    answers.map((a) => a.status),
    new Array(8).fill(200),
    'every request in flight on either thread finished',
  );
  t.ok(
    answers.every((a) => JSON.parse(a.body).choices[0].message.content),
    'with its whole answer',
  );
  t.equal(await exited, 0, 'the process exits 0 after the drain');
  t.match(p.output().stdout, /SIGTERM received, draining/);
});

t.test('svc start --workers takes auto or 1 to 256', async (t) => {
  const s = await startTestService(t, baseConfig());
  for (const bad of ['0', 'two', '257']) {
    const p = svcStart(s.configPath, cleanEnv(), ['--workers', bad]);
    t.equal(await p.exited, 2, `--workers ${bad}: usage error`);
    t.match(p.output().stderr, 'svc: --workers must be auto or an integer from 1 to 256');
  }
});
