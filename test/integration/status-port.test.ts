// A gateway replica's admin port (`svc start --role gateway`): /health, /ready and /metrics in the admin port's own
// answers, everything else a 404 in the REST envelope, parser refusals in that envelope too; and what the replica loads:
// neither Fastify (nor so the admin surfaces), the Redis client without Redis, the SigV4 signer without a Bedrock
// deployment, nor Node's bundled fetch engine.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { request } from 'undici';
import { stringify } from 'yaml';
import { ROOT, cleanEnv } from '../helpers/cli.ts';
import { rawRequest } from '../helpers/raw-http.ts';
import { LISTENING, svcStart } from '../helpers/service-process.ts';
import { baseConfig, chatBody, postJson } from '../helpers/service.ts';
import { freshPostgresDatabase } from '../helpers/store.ts';

/** `svc start --role <role>` on a fresh PostgreSQL database, recording what its main thread loads (read after it stops). */
async function startRecorded(t: Test, role: 'gateway' | 'all') {
  const dir = mkdtempSync(join(tmpdir(), 'svc-loaded-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'gateway.yaml');
  const record = join(dir, 'loaded.json');
  const store = { postgres_url: await freshPostgresDatabase(t), data_dir: join(dir, 'data') };
  writeFileSync(configPath, stringify(baseConfig({ store })));
  const recorder = join(ROOT, 'test/fixtures/loaded-modules/record.mjs');
  const env = cleanEnv({ NODE_OPTIONS: `--import=${recorder}`, SVC_TEST_LOADED_MODULES: record });
  const p = svcStart(configPath, env, ['--role', role]);
  t.teardown(() => p.stop());
  const { gateway, admin } = LISTENING[role].exec(await p.waitFor(LISTENING[role]))!.groups!;
  return {
    gatewayUrl: gateway,
    adminUrl: admin,
    /** Stops the process; the npm packages its main thread loaded, and whether it loaded Node's fetch engine. */
    async loaded() {
      t.equal(await p.stop(), 0, `role ${role}: stopped`);
      const { files, bundledUndici } = JSON.parse(readFileSync(record, 'utf8')) as {
        files: string[];
        bundledUndici: boolean;
      };
      const packages = new Set(files.map((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1]));
      return { packages, bundledUndici };
    },
  };
}

t.test('a gateway replica: its status port, and what it loads', async (t) => {
  const { adminUrl, gatewayUrl, loaded } = await startRecorded(t, 'gateway');

  for (const path of ['/health', '/ready']) {
    const res = await request(`${adminUrl}${path}`);
    t.equal(res.statusCode, 200, `${path}`);
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    t.same(await res.body.json(), { status: 'ok' });
    const head = await request(`${adminUrl}${path}`, { method: 'HEAD' });
    t.equal(head.statusCode, 200, `HEAD ${path}`);
    t.equal(
      head.headers['content-length'],
      String(Buffer.byteLength('{"status":"ok"}')),
      'HEAD: the length of the body',
    );
    t.equal(await head.body.text(), '', 'HEAD: no body');
  }

  t.equal((await postJson(gatewayUrl, '/v1/chat/completions', chatBody())).status, 200, 'one request served');
  const json = await request(`${adminUrl}/metrics`);
  t.equal(json.statusCode, 200);
  t.match(await json.body.json(), { requests: { total: 1, by_route: { chat: 1 } } }, '/metrics: the JSON counters');
  const text = await request(`${adminUrl}/metrics?format=prometheus`);
  t.equal(text.statusCode, 200);
  t.match(text.headers['content-type'], /^text\/plain; version=0\.0\.4/);
  t.match(await text.body.text(), 'svc_gateway_requests_total{route="chat",status="200"} 1\n', 'Prometheus text');

  for (const [method, path] of [
    ['GET', '/v1/traces'],
    ['GET', '/dashboard/'],
    ['POST', '/health'],
    ['DELETE', '/metrics'],
    ['GET', '/health/'],
  ] as const) {
    const res = await request(`${adminUrl}${path}?x=1`, { method, body: method === 'POST' ? '{}' : undefined });
    t.equal(res.statusCode, 404, `${method} ${path}`);
    t.same(await res.body.json(), {
      error: {
        code: 'not_found',
        message: `No admin route ${method} ${path}. The admin port serves /health, /ready and /metrics only (this process runs with --role gateway).`,
        details: { method, path },
      },
    });
  }

  const refused = await rawRequest(adminUrl, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n');
  t.equal(refused.status, 400, 'a header the parser refuses');
  t.equal(refused.json.error.code, 'invalid_header');
  t.match(refused.headers['x-request-id'], /^[0-9a-f-]{36}$/);

  const { packages, bundledUndici } = await loaded();
  t.ok(packages.has('undici'), 'the recorder sees what is loaded: the undici package (the provider client)');
  for (const absent of ['fastify', 'find-my-way', 'ioredis', '@smithy/signature-v4', '@smithy/eventstream-codec'])
    t.notOk(packages.has(absent), `a gateway replica does not load ${absent}`);
  t.notOk(bundledUndici, "a gateway replica does not load Node's bundled fetch engine");
});

t.test('a role all process loads the admin listener (the recorder sees Fastify when it is there)', async (t) => {
  const { packages } = await (await startRecorded(t, 'all')).loaded();
  t.ok(packages.has('fastify'));
});
