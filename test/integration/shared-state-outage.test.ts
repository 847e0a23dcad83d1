// The state replicas share through Redis while Redis cannot be reached (docs/decisions.md "Shared state when Redis
// is unreachable"): the router routes as if nothing were benched (a routing hint, like the response cache) and says so
// in the trace; sampled refusals are sampled per process; the REST API's rate limit cannot be counted, so the REST
// API answers 503; /metrics still answers and names the bench state's error. Everything is back once Redis is.
import t from 'tap';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { startFakeOpenAI } from '../helpers/fake-openai.ts';
import { redisTestPrefix, REDIS_URL } from '../helpers/redis.ts';
import { bearer, call } from '../helpers/rest-api.ts';
import { baseConfig, chatBody, openaiDeployment, startTestService } from '../helpers/service.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { waitFor } from '../helpers/wait-for.ts';

const key = (name: string) => `sk-test-${name}-0123456789abcdef`;
const attempts = (res: Response) =>
  (JSON.parse(res.headers.get('x-svc-attempts') ?? '[]') as { d: string; o: string }[]).map((a) => `${a.d} ${a.o}`);

function chat(url: string, name: string, model: string): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key(name)}` },
    body: JSON.stringify(chatBody({ model })),
  });
}

t.test(
  'Redis unreachable: routing without bench state, refusals sampled per process, REST API 503, until it is back',
  async (t) => {
    const proxy = await startTcpProxy(t, { host: '127.0.0.1', port: Number(new URL(REDIS_URL).port || 6379) });
    const sick = await startFakeOpenAI({ type: 'error', status: 500 });
    const healthy = await startFakeOpenAI();
    t.teardown(() => Promise.all([sick.close(), healthy.close()]));
    const svc = await startTestService(
      t,
      baseConfig({
        store: { redis_url: `redis://${proxy.host}:${proxy.port}`, redis_prefix: redisTestPrefix(t) },
        model_groups: [
          ...baseConfig().model_groups,
          {
            name: 'pair',
            routing: { retries: 1, bench_ms: 600_000 },
            deployments: [
              openaiDeployment('sick', sick.url, { weight: 1e6 }),
              openaiDeployment('healthy', healthy.url, { weight: 1e-6 }),
            ],
          },
        ],
        keys: [
          { alias: 'router', key: key('router'), project: 'default', model_groups: ['pair', 'demo'] },
          { alias: 'blocked', key: key('blocked'), project: 'default', model_groups: ['demo'], blocked: true },
        ],
        plugins: [{ use: 'auth' }, { use: 'router' }, { use: 'tracing' }],
      }),
    );
    const { gatewayUrl, adminUrl } = svc;
    const db = svc.service.db;
    const apiKey = await createApiKey(db, {
      kind: 'project',
      organizationId: 'default',
      projectId: 'default',
      now: Date.now(),
    });
    const barrier = async () => {
      const res = await chat(gatewayUrl, 'router', 'demo');
      await res.arrayBuffer();
      await waitFor('the barrier trace', () => getTrace(db, 'default', res.headers.get('x-svc-request-id')!));
    };

    const first = await chat(gatewayUrl, 'router', 'pair');
    t.same(attempts(first), ['sick retryable', 'healthy ok'], 'the sick deployment fails and is benched');
    t.same(attempts(await chat(gatewayUrl, 'router', 'pair')), ['healthy ok'], 'then skipped');
    t.equal((await call(adminUrl, 'GET', '/agents', { auth: bearer(apiKey) })).status, 200);

    proxy.cut();
    await waitFor('/ready 503', async () => (await fetch(`${gatewayUrl}/ready`)).status === 503);

    const during = await chat(gatewayUrl, 'router', 'pair');
    t.equal(during.status, 200, 'still served');
    t.same(
      attempts(during),
      ['sick retryable', 'healthy ok'],
      'the bench state cannot be read: the sick deployment is tried, then the healthy one',
    );
    const trace = await waitFor('its trace', () => getTrace(db, 'default', during.headers.get('x-svc-request-id')!));
    t.match(trace.metadata, { 'gateway.bench_error': /Redis/ }, 'the trace says why');

    for (let i = 0; i < 3; i++) t.equal((await chat(gatewayUrl, 'blocked', 'demo')).status, 401);
    await barrier();
    const sampled = await db.query(
      "SELECT id FROM traces WHERE project_id = 'default' AND metadata->>'gateway.key' = 'blocked'",
    );
    t.equal(sampled.rows.length, 1, 'refusals still sampled, by this process alone');

    const rest = await call(adminUrl, 'GET', '/agents', { auth: bearer(apiKey) });
    t.equal(rest.status, 503, 'the REST API cannot count its rate limit');
    t.match(rest.body, { error: { code: 'service_unavailable', details: { reason: 'counters unavailable' } } });

    const metrics = await fetch(`${adminUrl}/metrics`);
    t.equal(metrics.status, 200, '/metrics answers');
    t.match(await metrics.json(), { deployments: { benched_until: {}, bench_state_error: /Redis/ } });
    t.equal((await fetch(`${adminUrl}/metrics?format=prometheus`)).status, 200);

    proxy.restore();
    await waitFor('ready again', async () => (await fetch(`${gatewayUrl}/ready`)).status === 200);
    t.same(attempts(await chat(gatewayUrl, 'router', 'pair')), ['healthy ok'], 'the bench kept in Redis applies again');
    t.equal((await call(adminUrl, 'GET', '/agents', { auth: bearer(apiKey) })).status, 200);
    t.same(Object.keys(((await (await fetch(`${adminUrl}/metrics`)).json()) as any).deployments), ['benched_until']);
  },
);
