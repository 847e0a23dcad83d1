// A process started while its PostgreSQL is down (docs/operations.md "A process started while the store is down"):
// `svc start` pointed at a port that refuses connections stays up, says store_unavailable on /health and /ready on
// both ports, refuses gateway requests with 503 gateway_config_stale and admin requests with a 503 in each surface's
// envelope; once PostgreSQL answers on that port it migrates and loads the store by itself and serves, and its traces
// are stored, without a restart.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { openDatabase } from '../../src/platform/store/database.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { dashboardRequest } from '../helpers/dashboard.ts';
import { bearer, call, checkError } from '../helpers/rest-api.ts';
import { baseConfig, chatBody, postJson, TEST_KEY } from '../helpers/service.ts';
import { freePort } from '../helpers/ports.ts';
import { startServiceProcess } from '../helpers/service-process.ts';
import { freshPostgresDatabase } from '../helpers/store.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { sleep, waitFor } from '../helpers/wait-for.ts';

const BUDGET_KEY = 'sk-test-budgeted-0123456789abcdef';
const UNAVAILABLE = { status: 'unavailable', reason: 'store_unavailable' };

const probe = async (url: string, path: string) => {
  const res = await fetch(`${url}${path}`);
  return { status: res.status, body: await res.json() };
};

t.test('a process started while PostgreSQL is down starts not ready and becomes ready by itself', async (t) => {
  const url = await freshPostgresDatabase(t);
  // Nothing listens there (connecting is refused) until the proxy starts on it.
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'svc-store-down-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'gateway.yaml');
  const storeUrl = new URL(url);
  storeUrl.port = String(port);
  writeFileSync(
    configPath,
    stringify(
      baseConfig({
        server: { host: '127.0.0.1', port: 0, admin_port: 0, watch_config: false },
        store: { postgres_url: storeUrl.toString(), key_poll_ms: 200, data_dir: join(dir, 'data') },
        keys: [
          { alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['demo'] },
          { alias: 'budgeted', key: BUDGET_KEY, project: 'default', model_groups: ['demo'], budget_usd: 5 },
        ],
        plugins: [{ use: 'auth' }, { use: 'budget' }, { use: 'router' }, { use: 'tracing' }],
      }),
    ),
  );

  const { process: svc, gatewayUrl, adminUrl } = await startServiceProcess(t, configPath);
  t.match(svc.output().stderr, /the store cannot be reached; starting not ready.*ECONNREFUSED/, 'the outage is logged');
  // A few retries' worth of time: the process keeps running.
  const exited = await Promise.race([svc.exited.then(() => true), sleep(2_500).then(() => false)]);
  t.notOk(exited, 'the process stays up while the store refuses connections');

  for (const base of [gatewayUrl, adminUrl])
    for (const path of ['/health', '/ready'])
      t.same(await probe(base, path), { status: 503, body: UNAVAILABLE }, `${path} on ${base}: 503 store_unavailable`);

  for (const key of [BUDGET_KEY, TEST_KEY]) {
    const res = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { authorization: `Bearer ${key}` });
    t.equal(res.status, 503, `${key === BUDGET_KEY ? 'a budgeted' : 'an unbudgeted'} key: 503`);
    const body = await res.json();
    t.same(
      body,
      { error: { message: body.error?.message, type: 'server_error', param: null, code: 'gateway_config_stale' } },
      'in the OpenAI envelope, code gateway_config_stale',
    );
    t.match(body.error.message, /store is unavailable/);
  }

  const rest = await call(adminUrl, 'GET', '/agents', { auth: bearer({ secretKey: 'sk-svc-unknown' }) });
  checkError(t, rest, 503, 'service_unavailable', { message: /store is unreachable/ });
  const publicApi = await fetch(`${adminUrl}/api/public/traces`, {
    headers: { authorization: `Basic ${Buffer.from('pk-lf-x:sk-lf-x').toString('base64')}` },
  });
  t.equal(publicApi.status, 503, 'the public API: 503');
  t.same(
    await publicApi.json(),
    { message: 'The store is unreachable; retry shortly.', error: 'ServiceUnavailableError' },
    'in its envelope',
  );
  const scim = await fetch(`${adminUrl}/api/public/scim/Users`, {
    headers: { authorization: `Basic ${Buffer.from('pk-lf-x:sk-lf-x').toString('base64')}` },
  });
  t.equal(scim.status, 503, 'SCIM: 503');
  t.same(
    await scim.json(),
    {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '503',
      detail: 'The store is unreachable; retry shortly.',
    },
    'in the SCIM error schema',
  );
  const signIn = await dashboardRequest({ adminUrl }, 'POST', '/session', {}, { email: 'a@b.c', password: 'secret' });
  t.same(
    { status: signIn.status, body: signIn.body },
    {
      status: 503,
      body: { error: { code: 'service_unavailable', message: 'The store is unreachable; retry shortly.' } },
    },
    'the dashboard API: 503 in its envelope',
  );

  // PostgreSQL comes up on the configured port.
  await startTcpProxy(t, undefined, port);
  await waitFor('/ready on both ports', async () => {
    const [gateway, admin] = await Promise.all([probe(gatewayUrl, '/ready'), probe(adminUrl, '/ready')]);
    return gateway.status === 200 && admin.status === 200;
  });
  t.same(await probe(adminUrl, '/health'), { status: 200, body: { status: 'ok' } }, '/health 200');
  t.equal(svc.output().stderr.match(/"msg":"store reached/g)?.length, 1, 'the same process, prepared once');
  const out = svc.output().stdout;
  t.match(out, /Created project key pair for 'default'/, 'the store was bootstrapped: the project key pair printed');
  t.match(out, /Dashboard sign-in \(shown once; keep it\)/, 'and the dashboard owner created');

  const res = await postJson(gatewayUrl, '/v1/chat/completions', chatBody(), { authorization: `Bearer ${BUDGET_KEY}` });
  t.equal(res.status, 200, 'the budgeted key is served');
  t.ok((await res.json()).choices?.[0]?.message, 'with a completion');
  const traceId = res.headers.get('x-svc-request-id')!;

  const db = await openDatabase({ postgresUrl: url, dataDir: '' });
  t.teardown(() => db.close());
  const trace = await waitFor('the trace stored', () => getTrace(db, 'default', traceId));
  t.equal(trace.id, traceId, 'the request is traced in the store');
  t.equal(svc.output().stdout.match(/svc gateway listening/g)?.length, 1, 'without a restart');
});
