// The store actually unreachable (its PostgreSQL behind a TCP proxy that cuts every connection): what needs it answers
// the documented coded 503, never a 500. A budgeted key on a process whose budget counters are not seeded yet (a
// replica restarted during the outage) cannot read its spend: 503 gateway_config_stale. The REST API cannot
// authenticate a key: 503 service_unavailable in its envelope, with its usual headers.
import t from 'tap';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { bearer, call, checkError } from '../helpers/rest-api.ts';
import { baseConfig, chatBody, postJson, startTestService, TEST_KEY } from '../helpers/service.ts';
import { freshPostgresDatabase } from '../helpers/store.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';

const BUDGET_KEY = 'sk-test-budgeted-0123456789abcdef';

t.test('store unreachable: coded 503s on the gateway and the REST API', async (t) => {
  const url = await freshPostgresDatabase(t);
  const proxy = await startTcpProxy(t);
  const { service, gatewayUrl, adminUrl } = await startTestService(
    t,
    baseConfig({
      keys: [
        { alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['demo'] },
        { alias: 'budgeted', key: BUDGET_KEY, project: 'default', model_groups: ['demo'], budget_usd: 5 },
      ],
      plugins: [{ use: 'auth' }, { use: 'budget' }, { use: 'router' }],
      store: { postgres_url: proxy.through(url) },
    }),
  );
  const apiKey = await createApiKey(service.db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: Date.now(),
  });
  const agents = await call(adminUrl, 'GET', '/agents', { auth: bearer(apiKey) });
  t.equal(agents.status, 200, 'GET /v1/agents answers while the store is up');

  proxy.cut();

  const unbudgeted = await postJson(gatewayUrl, '/v1/chat/completions', chatBody());
  t.equal(unbudgeted.status, 200, 'a key without a budget is still served from memory');
  await unbudgeted.arrayBuffer();

  const res = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { authorization: `Bearer ${BUDGET_KEY}` });
  t.equal(res.status, 503, 'a budgeted key whose counter is not seeded: 503');
  const body = await res.json();
  t.same(
    body,
    { error: { message: body.error?.message, type: 'server_error', param: null, code: 'gateway_config_stale' } },
    'OpenAI envelope, code gateway_config_stale',
  );
  t.match(body.error.message, /store is unreachable/);
  t.ok(res.headers.get('x-svc-request-id'), 'with its request id');

  const outage = await call(adminUrl, 'GET', '/agents', { auth: bearer(apiKey) });
  checkError(t, outage, 503, 'service_unavailable', { message: /store is unreachable/ });

  proxy.restore();
  const after = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), {
    authorization: `Bearer ${BUDGET_KEY}`,
  });
  t.equal(after.status, 200, 'served again once the store is back');
  await after.arrayBuffer();
  t.equal(
    (await call(adminUrl, 'GET', '/agents', { auth: bearer(apiKey) })).status,
    200,
    'GET /v1/agents answers again',
  );
});
