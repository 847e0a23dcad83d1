// Many replicas behave as one (docs/architecture.md "Processes and listeners", docs/operations.md "Scaling across
// replicas"): separate `svc start` processes — two with `--role gateway`, two with `--role admin` — on one fresh
// PostgreSQL database and one Redis key prefix. One rpm limit and one budget hold across both gateways; a deployment
// benched through one gateway is skipped by the other and shown as benched by every process; a blocked key refused on
// both gateways is traced once; the REST API's limit is counted once across both admin processes; a key minted on an
// admin process works on both gateways once they poll the store.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { openDatabase, type Database } from '../../src/platform/store/database.ts';
import { getTrace } from '../../src/platform/store/repos/traces.ts';
import { runCli } from '../helpers/cli.ts';
import { signIn } from '../helpers/dashboard.ts';
import { startFakeOpenAI } from '../helpers/fake-openai.ts';
import { roomInMinute } from '../helpers/gateways.ts';
import { redisTestPrefix, REDIS_URL } from '../helpers/redis.ts';
import { bearer, call } from '../helpers/rest-api.ts';
import { chatBody, openaiDeployment } from '../helpers/service.ts';
import { startServiceProcess } from '../helpers/service-process.ts';
import { freshPostgresDatabase } from '../helpers/store.ts';
import { waitFor } from '../helpers/wait-for.ts';

const key = (name: string) => `sk-test-${name}-0123456789abcdef`;
/** One token costs $0.001 in and out. */
const PRICE = { input_per_mtok: 1000, output_per_mtok: 1000 };
/** max_tokens that makes the worst case of a "Hello" request (9 prompt tokens) exactly $0.10. */
const TENTH = 91;
const mock = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  provider: 'mock',
  model: 'mock-small',
  price: PRICE,
  ...extra,
});

interface Attempt {
  d: string;
  o: string;
}
const attemptsOf = (res: Response): Attempt[] => JSON.parse(res.headers.get('x-svc-attempts') ?? '[]');

function chat(url: string, name: string, extra: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${name.startsWith('sk-') ? name : key(name)}`,
    },
    body: JSON.stringify(chatBody(extra)),
  });
}

/** Status and error code of a chat request, its body read. */
async function outcome(res: Response): Promise<string> {
  const body = (await res.json()) as any;
  return res.status === 200 ? '200' : `${res.status} ${body.error?.code}`;
}

t.test('svc start --role takes all, gateway or admin', async (t) => {
  const r = await runCli(['start', '--role', 'both']);
  t.equal(r.code, 2, 'a usage error');
  t.match(r.stderr, 'svc: --role must be one of all, gateway, admin');
});

t.test('two gateway and two admin processes on one PostgreSQL and one Redis behave as one service', async (t) => {
  const postgresUrl = await freshPostgresDatabase(t);
  const redisPrefix = redisTestPrefix(t);
  const sick = await startFakeOpenAI({
    type: 'error',
    status: 500,
    envelope: { error: { message: 'overloaded', type: 'server_error', code: null } },
  });
  const healthy = await startFakeOpenAI();
  t.teardown(() => Promise.all([sick.close(), healthy.close()]));
  const dir = mkdtempSync(join(tmpdir(), 'svc-replicas-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));

  // One gateway.yaml for every process but for its data_dir (spill files and journals are per process).
  const configFor = (name: string) => {
    const path = join(dir, `${name}.yaml`);
    writeFileSync(
      path,
      stringify({
        version: 1,
        server: { host: '127.0.0.1', port: 0, admin_port: 0, watch_config: false },
        store: {
          postgres_url: postgresUrl,
          redis_url: REDIS_URL,
          redis_prefix: redisPrefix,
          key_poll_ms: 200,
          data_dir: join(dir, `data-${name}`),
        },
        api: { rate_limit: { requests_per_minute: 6, burst: 6 } },
        projects: [{ id: 'default', name: 'Default' }],
        agents: [{ id: 'bot', project: 'default', name: 'bot' }],
        model_groups: [
          { name: 'demo', created_at: '2026-01-01T00:00:00Z', deployments: [mock('demo-mock')] },
          // Answers after every request of a concurrent burst has been admitted.
          {
            name: 'held',
            created_at: '2026-01-01T00:00:00Z',
            deployments: [mock('held-mock', { mock: { latency_ms: 1500 } })],
          },
          {
            name: 'pair',
            created_at: '2026-01-01T00:00:00Z',
            routing: { retries: 1, bench_ms: 600_000 },
            // The weights make the sick deployment the first choice of a request that may choose it.
            deployments: [
              openaiDeployment('sick', sick.url, { weight: 1e6 }),
              openaiDeployment('healthy', healthy.url, { weight: 1e-6 }),
            ],
          },
        ],
        keys: [
          { alias: 'plain', key: key('plain'), project: 'default', model_groups: ['demo'] },
          { alias: 'limited', key: key('limited'), project: 'default', model_groups: ['demo'], rpm: 6 },
          { alias: 'budgeted', key: key('budgeted'), project: 'default', model_groups: ['held'], budget_usd: 0.5 },
          { alias: 'router', key: key('router'), project: 'default', model_groups: ['pair'] },
          { alias: 'blocked', key: key('blocked'), project: 'default', model_groups: ['demo'], blocked: true },
        ],
        plugins: [{ use: 'auth' }, { use: 'rate-limit' }, { use: 'budget' }, { use: 'router' }, { use: 'tracing' }],
      }),
    );
    return path;
  };

  // The first admin process migrates the store and prints the project key pair and the dashboard sign-in; the
  // others then start together.
  const admin1 = await startServiceProcess(t, configFor('admin-1'), { role: 'admin' });
  const [gatewayA, gatewayB, admin2] = await Promise.all([
    startServiceProcess(t, configFor('gateway-a'), { role: 'gateway' }),
    startServiceProcess(t, configFor('gateway-b'), { role: 'gateway' }),
    startServiceProcess(t, configFor('admin-2'), { role: 'admin' }),
  ]);
  const firstOut = admin1.process.output().stdout;
  const publicKey = /public key: (\S+)/.exec(firstOut)![1];
  const secretKey = /secret key: (\S+)/.exec(firstOut)![1];
  const ownerPassword = /as owner@localhost with password (\S+)/.exec(firstOut)![1];
  const db: Database = await openDatabase({ postgresUrl, dataDir: '' });
  t.teardown(() => db.close());
  const gateways = [gatewayA.gatewayUrl, gatewayB.gatewayUrl];

  t.test('each role serves its own listeners', async (t) => {
    for (const g of [gatewayA, gatewayB]) {
      t.match(
        g.process.output().stdout,
        /svc gateway listening on \S+ \([^)]*\): \S+\/v1 \(role gateway\)\nsvc status listening on \S+ \([^)]*\): \S+ \(\/health, \/ready, \/metrics only\)/,
      );
      t.notMatch(g.process.output().stdout, /Dashboard sign-in/, 'no dashboard owner printed by a gateway');
      t.equal((await fetch(`${g.gatewayUrl}/ready`)).status, 200, 'gateway port: /ready');
      t.equal((await fetch(`${g.adminUrl}/ready`)).status, 200, 'status port: /ready');
      t.equal((await fetch(`${g.adminUrl}/metrics`)).status, 200, 'status port: /metrics');
      for (const path of ['/v1/traces', '/api/public/projects', '/dashboard/', '/dashboard/api/session']) {
        const res = await fetch(`${g.adminUrl}${path}`);
        t.equal(res.status, 404, `status port: no ${path}`);
        t.match(await res.json(), {
          error: {
            code: 'not_found',
            message: /serves \/health, \/ready and \/metrics only \(this process runs with --role gateway\)/,
          },
        });
      }
    }
    for (const a of [admin1, admin2]) {
      t.match(
        a.process.output().stdout,
        /svc admin listening on \S+ \([^)]*\): \S+ \(role admin; no gateway listener\)/,
      );
      t.notMatch(a.process.output().stdout, /gateway listening/);
      t.equal((await fetch(`${a.adminUrl}/ready`)).status, 200);
      t.equal((await fetch(`${a.adminUrl}/v1/traces`)).status, 401, 'the REST API is served (and asks for a key)');
    }
  });

  t.test('one rpm limit across both gateways: 6 of 12 concurrent requests pass', async (t) => {
    await roomInMinute(10);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => chat(gateways[i % 2], 'limited', { model: 'demo' }).then(outcome)),
    );
    t.equal(results.filter((r) => r === '200').length, 6, 'six served');
    t.equal(
      results.filter((r) => r === '429 rate_limit_exceeded').length,
      6,
      'six refused, whichever gateway they reached',
    );
  });

  t.test('one budget across both gateways: $0.50 holds 5 worst cases of $0.10, never more', async (t) => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        chat(gateways[i % 2], 'budgeted', { model: 'held', max_tokens: TENTH }).then(outcome),
      ),
    );
    t.equal(results.filter((r) => r === '200').length, 5, 'five served');
    t.equal(results.filter((r) => r === '429 budget_exceeded').length, 7);
    const ledger = await waitFor('five requests in the spend ledger', async () => {
      const r = await db.query<{ requests: unknown; nano: unknown }>(
        "SELECT COALESCE(sum(requests), 0) AS requests, COALESCE(sum(usd_nano), 0) AS nano FROM budget_spend WHERE budget_id = 'key:budgeted:total'",
      );
      const row = { requests: Number(r.rows[0].requests), nano: Number(r.rows[0].nano) };
      return row.requests === 5 && row;
    });
    t.ok(ledger.nano > 0 && ledger.nano <= 0.5e9, `spent within the budget (${ledger.nano} nano-USD)`);
  });

  t.test('a deployment benched through one gateway is skipped by the other', async (t) => {
    const first = await chat(gatewayA.gatewayUrl, 'router', { model: 'pair' });
    t.equal(first.status, 200, 'served by the healthy deployment after the sick one failed');
    t.same(
      attemptsOf(first).map((a) => [a.d, a.o]),
      [
        ['sick', 'retryable'],
        ['healthy', 'ok'],
      ],
    );
    await first.arrayBuffer();
    t.equal(sick.requests.length, 1);

    const later: Attempt[][] = [];
    for (let i = 0; i < 5; i++) {
      const res = await chat(gatewayB.gatewayUrl, 'router', { model: 'pair' });
      t.equal(res.status, 200);
      later.push(attemptsOf(res));
      await res.arrayBuffer();
    }
    t.same(
      later.map((a) => a.map((x) => [x.d, x.o])),
      Array(5).fill([['healthy', 'ok']]),
      'the other gateway never tries the benched deployment',
    );
    t.equal(sick.requests.length, 1, 'the sick upstream got no second request');

    for (const url of [admin1.adminUrl, gatewayB.adminUrl]) {
      const metrics = (await (await fetch(`${url}/metrics`)).json()) as any;
      t.same(
        Object.keys(metrics.deployments.benched_until),
        ['sick'],
        `${url}/metrics: benched_until names the deployment`,
      );
      t.ok(Date.parse(metrics.deployments.benched_until.sick) > Date.now(), 'until a time to come');
    }
    const prometheus = await (await fetch(`${admin1.adminUrl}/metrics?format=prometheus`)).text();
    t.match(
      prometheus,
      /^svc_deployment_benched_until_seconds\{model_group="pair",deployment="sick"\} \d+/m,
      'Prometheus: the bench end of the benched deployment',
    );
    t.notMatch(prometheus, /deployment="healthy"/);

    const owner = await signIn(admin2, 'owner@localhost', ownerPassword);
    const groups = await owner.call('GET', '/model-groups');
    t.equal(groups.status, 200);
    const pair = groups.body.data.find((g: any) => g.name === 'pair');
    t.match(
      pair.deployments,
      [
        { id: 'sick', healthy: false, benchedUntil: String },
        { id: 'healthy', healthy: true, benchedUntil: null },
      ],
      'the dashboard of the other admin process shows it benched',
    );
  });

  t.test('a blocked key refused on both gateways within a minute is traced once', async (t) => {
    const refused: string[] = [];
    for (const url of [...gateways, ...gateways])
      refused.push(await outcome(await chat(url, 'blocked', { model: 'demo' })));
    t.same(refused, Array(4).fill('401 key_blocked'));
    // Each gateway's trace writer stores traces in order: once a later trace of each is stored, so is any refusal.
    for (const url of gateways) {
      const res = await chat(url, 'plain', { model: 'demo' });
      t.equal(res.status, 200);
      await res.arrayBuffer();
      await waitFor('the barrier trace', () => getTrace(db, 'default', res.headers.get('x-svc-request-id')!));
    }
    const traces = await db.query<{ id: string }>(
      "SELECT id FROM traces WHERE project_id = 'default' AND metadata->>'gateway.key' = 'blocked' AND error_code = 'key_blocked'",
    );
    t.equal(traces.rows.length, 1, 'four refusals, one sampled trace');
  });

  t.test('the REST API limit is counted once across both admin processes', async (t) => {
    await roomInMinute(10);
    const remaining: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await call(i % 2 ? admin2.adminUrl : admin1.adminUrl, 'GET', '/agents', {
        auth: bearer({ secretKey }),
      });
      t.equal(r.status, 200);
      t.equal(r.headers.get('x-ratelimit-limit'), '6');
      remaining.push(Number(r.headers.get('x-ratelimit-remaining')));
    }
    t.same(remaining, [5, 4, 3, 2, 1, 0], 'one count, whichever process answered');
    for (const url of [admin1.adminUrl, admin2.adminUrl]) {
      const r = await call(url, 'GET', '/agents', { auth: bearer({ secretKey }) });
      t.equal(r.status, 429, 'the seventh is refused by either');
      t.match(r.body, { error: { code: 'rate_limit_exceeded' } });
    }
  });

  t.test('a key minted on an admin process works on both gateways after they poll the store', async (t) => {
    const res = await fetch(`${admin1.adminUrl}/api/public/v1/gateway/keys`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString('base64')}`,
      },
      body: JSON.stringify({ agentId: 'bot', modelGroups: ['demo'], expiresInHours: 1 }),
    });
    t.equal(res.status, 201);
    const minted = ((await res.json()) as any).key as string;
    for (const url of gateways) {
      const served = await waitFor(
        `the minted key at ${url}`,
        async () => (await outcome(await chat(url, minted, { model: 'demo' }))) === '200',
        10_000,
      );
      t.ok(served, `served by ${url}`);
    }
  });
});
