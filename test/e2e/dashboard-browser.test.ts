// The dashboard in a real browser (Debian chromium through playwright-core) against a real service: sign-in, keys minted
// in the page carrying traffic through the gateway, the metrics the page renders checked against that traffic, the
// per-agent page, a trace waterfall, a webhook automation whose signed delivery reaches a receiver here, blocking a
// key, a member changing their own password, a viewer without change controls, sign-out; a key of gateway.yaml listed
// read-only, and a warning about those that expired or expire within 7 days; the metrics page opening on the window
// that holds the traffic, a refused secret redacted on the trace page, an embeddings trace's cost, a stream's attempt
// as long as its span, a long trace list's total given as a lower bound. Screenshots of the main pages go to
// test-artifacts/screenshots/.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import type { Page } from 'playwright-core';
import t from 'tap';
import { registerDashboardStatic } from '../../admin/dashboard-static.ts';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { addUser } from '../../src/observability/users/add-user.ts';
import { ensureDashboardBuild, launchBrowser, screenshot } from '../helpers/browser.ts';
import { generateTraces } from '../helpers/generated-traces.ts';
import { listenLocally } from '../helpers/local-server.ts';
import { basicAuth } from '../helpers/public-api.ts';
import { baseConfig, startTestService, TEST_KEY } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait-for.ts';

const PRICE = { input_per_mtok: 0.15, output_per_mtok: 0.6 };
const DAY_MS = 86_400_000;
// Keys of gateway.yaml past or near their expiry, relative to the real clock: the Keys page warns about both.
const EXPIRES_SOON = new Date(Date.now() + 3 * DAY_MS + 3_600_000).toISOString();
const EXPIRED = new Date(Date.now() - DAY_MS).toISOString();
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';

t.test('static serving of the build', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dashboard-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const app = Fastify();
  registerDashboardStatic(app, join(dir, 'dist'));
  app.get('/dashboard/api/session', async () => ({ ok: true }));
  t.teardown(() => app.close());

  const missing = await app.inject('/dashboard/');
  t.equal(missing.statusCode, 503, 'no build: 503');
  t.match(missing.body, /npm run build/);

  mkdirSync(join(dir, 'dist', 'assets'), { recursive: true });
  writeFileSync(join(dir, 'dist', 'index.html'), '<!doctype html><title>x</title>');
  writeFileSync(join(dir, 'dist', 'assets', 'index-abc123.js'), 'export {}');
  writeFileSync(join(dir, 'dist', 'assets', 'index-abc123.css'), 'body{}');
  writeFileSync(join(dir, 'secret.txt'), 'outside');
  for (const path of ['/dashboard', '/dashboard/', '/dashboard/p/default/metrics']) {
    const r = await app.inject(path);
    t.equal(r.statusCode, 200, path);
    t.equal(r.headers['content-type'], 'text/html; charset=utf-8', path);
    t.equal(r.headers['cache-control'], 'no-cache', path);
  }
  const js = await app.inject('/dashboard/assets/index-abc123.js');
  t.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
  t.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.equal((await app.inject('/dashboard/assets/index-abc123.css')).headers['content-type'], 'text/css; charset=utf-8');
  for (const path of [
    '/dashboard/assets/nope.js',
    '/dashboard/assets/..%2F..%2Fsecret.txt',
    '/dashboard/assets/%2e%2e/%2e%2e/secret.txt',
    '/dashboard/assets/../../secret.txt',
  ]) {
    const r = await app.inject(path);
    t.not(r.body, 'outside', `${path} does not leave the build`);
    t.ok(
      r.statusCode === 404 || (r.statusCode === 200 && r.body.startsWith('<!doctype html>')),
      `${path}: ${r.statusCode}`,
    );
  }
  t.equal((await app.inject('/dashboard/api/session')).json().ok, true, 'a data route is not shadowed');
  const unknown = await app.inject('/dashboard/api/nope');
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.json().error.code, 'not_found', 'an unknown data route answers in the envelope');
});

/** A webhook receiver that checks `x-svc-signature` (HMAC-SHA256 of the raw body) against the secret it is given. */
async function receiver(t: { teardown(fn: () => unknown): void }) {
  const received: { body: string; signature: string; verified: boolean }[] = [];
  const state = { secret: '' };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const signature = String(req.headers['x-svc-signature'] ?? '');
      const v1 = /(?:^|,)v1=([0-9a-f]{64})/.exec(signature)?.[1];
      const expected = createHmac('sha256', state.secret).update(body).digest();
      const verified = v1 !== undefined && state.secret !== '' && timingSafeEqual(Buffer.from(v1, 'hex'), expected);
      received.push({ body: body.toString('utf8'), signature, verified });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('received by the test receiver');
    });
  });
  const local = await listenLocally(server);
  t.teardown(() => local.close());
  return { url: local.url, received, state };
}

t.test('the dashboard in chromium', async (t) => {
  await ensureDashboardBuild();
  const hook = await receiver(t);
  const s = await startTestService(
    t,
    baseConfig({
      keys: [
        { alias: 'test', key: TEST_KEY, project: 'default', model_groups: ['demo'] },
        {
          alias: 'soon',
          key: `${TEST_KEY}-soon`,
          project: 'default',
          model_groups: ['demo'],
          expires_at: EXPIRES_SOON,
        },
        { alias: 'gone', key: `${TEST_KEY}-gone`, project: 'default', model_groups: ['demo'], expires_at: EXPIRED },
      ],
      projects: [
        { id: 'default', name: 'Default', budgets: [{ usd: 50, period: 'daily', mode: 'soft' }] },
        { id: 'other', name: 'Other' },
      ],
      agents: [
        { id: 'alpha', project: 'default', name: 'alpha' },
        { id: 'beta', project: 'default', name: 'beta' },
      ],
      model_groups: [
        {
          name: 'demo',
          created_at: '2026-11-21T00:00:00Z',
          deployments: [{ id: 'demo-mock', provider: 'mock', model: 'mock-small', price: PRICE }],
        },
        // Answers later than its timeout: every request to it is an error.
        {
          name: 'slow',
          created_at: '2026-11-21T00:00:00Z',
          routing: { retries: 0, timeout_ms: 30, bench_ms: 600_000 },
          // Two, so the router benches the one that failed (it keeps a group's last deployment in rotation).
          deployments: ['slow-mock-a', 'slow-mock-b'].map((id) => ({
            id,
            provider: 'mock',
            model: 'mock-slow',
            mock: { latency_ms: 5000 },
            price: PRICE,
          })),
        },
      ],
      plugins: [
        { use: 'auth' },
        // The default gateway.yaml's policy: credentials and card numbers in prompts are refused.
        {
          use: 'guardrails',
          config: {
            policies: [
              {
                name: 'no-secrets',
                detectors: [{ type: 'secrets' }, { type: 'pii', entities: ['credit_card'] }],
                check: { response: false },
              },
            ],
          },
        },
        { use: 'budget' },
        { use: 'router' },
        { use: 'tracing' },
      ],
      webhooks: {
        allow_private_networks: true,
        timeout_ms: 2000,
        max_attempts: 2,
        retry_base_ms: 40,
        retry_max_ms: 150,
        poll_ms: 30,
      },
    }),
  );
  const db = s.service.db;
  const password = 'correct horse battery staple';
  const by = { actor: 'test', organizationId: 'default' };
  for (const role of ['owner', 'member', 'viewer'] as const)
    await addUser(db, { email: `${role}@example.test`, name: `The ${role}`, role, password }, by);
  const apiKey = await createApiKey(db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: Date.now(),
  });

  const browser = await launchBrowser(t);
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('dialog', (d) => void d.accept(d.type() === 'prompt' ? '1' : undefined));
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const dash = `${s.adminUrl}/dashboard/`;

  async function signIn(p: Page, email: string) {
    await p.goto(dash);
    await p.getByLabel('Email').fill(email);
    await p.getByLabel('Password').fill(password);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByTestId('current-user').waitFor();
  }

  const go = async (hash: string) => {
    await page.goto(`${dash}#${hash}`);
  };

  const minted: Record<string, string> = {};
  const sent = {
    requests: 0,
    errors: 0,
    tokens: 0,
    cost: 0,
    byAgent: {} as Record<string, number>,
    costByAgent: {} as Record<string, number>,
  };

  async function chat(agent: string, group: string, text: string) {
    const res = await fetch(`${s.gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${minted[agent]}` },
      body: JSON.stringify({ model: group, messages: [{ role: 'user', content: text }] }),
    });
    const body = (await res.json()) as any;
    sent.requests++;
    sent.byAgent[agent] = (sent.byAgent[agent] ?? 0) + 1;
    if (!res.ok) sent.errors++;
    else {
      sent.tokens += body.usage.total_tokens;
      const cost =
        (body.usage.prompt_tokens * PRICE.input_per_mtok + body.usage.completion_tokens * PRICE.output_per_mtok) / 1e6;
      sent.cost += cost;
      sent.costByAgent[agent] = (sent.costByAgent[agent] ?? 0) + cost;
    }
    return res;
  }

  await t.test('sign-in: a wrong password is refused, the right one opens the metrics page', async (t) => {
    await page.goto(dash);
    await page.getByLabel('Email').fill('owner@example.test');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('sign-in-error').filter({ hasText: 'invalid_credentials' }).waitFor();
    await screenshot(page, '01-sign-in');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    t.match(await page.getByTestId('current-user').textContent(), /owner@example\.test\s*owner/);
    await page.getByTestId('totals').waitFor();
    t.match(page.url(), /#\/p\/default\/metrics$/);
    t.equal(await page.getByTestId('total-requests').textContent(), '0', 'no traffic yet');
    t.equal(
      await page.locator('button[data-window].active').getAttribute('data-window'),
      '1h',
      'no traffic: it opens on the last hour',
    );
  });

  await t.test('keys minted in the page carry traffic through the gateway', async (t) => {
    for (const agent of ['alpha', 'beta']) {
      await go('/p/default/keys');
      const form = page.locator('form', { has: page.getByTestId('mint-key') });
      await form.getByLabel('Agent').selectOption(agent);
      await form.getByLabel('demo').check();
      await form.getByLabel('slow').check();
      await form.getByLabel('Alias', { exact: true }).fill(`${agent}-key`);
      if (agent === 'alpha') await form.getByLabel(/^Budget/).fill('2');
      await page.getByTestId('mint-key').click();
      await page.locator(`tr[data-alias="${agent}-key"]`).waitFor();
      minted[agent] = await page.getByTestId('key-plaintext').inputValue();
      t.match(minted[agent], /\S{20,}/, `${agent}: the key is shown once, listed`);
    }
    for (let i = 0; i < 5; i++) t.equal((await chat('alpha', 'demo', `alpha question number ${i}`)).status, 200);
    for (let i = 0; i < 3; i++) t.equal((await chat('beta', 'demo', `beta ${'words '.repeat(i + 1)}`)).status, 200);
    const failed = await chat('alpha', 'slow', 'this one times out');
    t.ok(failed.status >= 500, `the slow group fails: ${failed.status}`);
    const configured = page.locator('tr[data-alias="test"]');
    t.equal(await configured.getAttribute('data-read-only'), 'true', 'the key of gateway.yaml is listed');
    t.match(await configured.textContent(), /gateway\.yaml\s*read-only/, 'marked read-only');
    t.equal(await configured.getByRole('button').count(), 0, 'without change controls');
    t.equal(await page.locator('tr[data-alias="alpha-key"]').getByRole('button').count(), 3, 'a minted key keeps them');
    const expiry = page.getByTestId('key-expiry-warnings');
    t.equal(await expiry.getAttribute('role'), 'alert', 'keys of gateway.yaml near or past their expiry: a warning');
    t.same(await expiry.locator('li').allTextContents(), [
      `key 'soon' expires at ${EXPIRES_SOON} (expires_at), in 3 days: then requests with it get 401 key_expired`,
      `key 'gone' expired at ${EXPIRED} (expires_at): requests with it get 401 key_expired`,
    ]);
    t.match(await page.locator('tr[data-alias="gone"]').textContent(), /expired/, 'the expired key is listed as such');
    await screenshot(page, '02-keys');
  });

  await t.test('the metrics page shows the traffic sent', async (t) => {
    // The trace writer keeps the rollups behind the responses: wait until they hold every request.
    let last: unknown;
    await waitFor('rollups', async () => {
      const r = await page.request.get(`${s.adminUrl}/dashboard/api/projects/default/metrics?window=1h`);
      last = await r.json();
      return r.ok() && (last as any).totals.requests === sent.requests;
    }).catch((err) => Promise.reject(new Error(`${err.message}: ${JSON.stringify(last)}`)));
    await go('/p/default/metrics');
    await page.getByTestId('totals').waitFor();
    t.equal(
      await page.locator('button[data-window].active').getAttribute('data-window'),
      '1h',
      'young traffic: the page opens on the last hour',
    );
    t.equal(await page.getByTestId('total-requests').textContent(), String(sent.requests), 'requests');
    t.equal(await page.getByTestId('total-errors').textContent(), String(sent.errors), 'errors');
    t.equal(
      await page.getByTestId('total-error-rate').textContent(),
      `${Number(((sent.errors / sent.requests) * 100).toFixed(2))} %`,
      'error rate',
    );
    t.equal(
      await page.getByTestId('total-tokens').textContent(),
      new Intl.NumberFormat('en-US').format(sent.tokens),
      'tokens',
    );
    const cost = Number((await page.getByTestId('total-cost').textContent())!.replace('$', ''));
    t.ok(Math.abs(cost - sent.cost) < 1e-6, `cost ${cost} ≈ ${sent.cost}`);
    for (const id of ['chart-latency', 'chart-throughput', 'chart-error-rate', 'chart-tokens', 'chart-cost']) {
      await page.locator(`[data-testid="${id}"] canvas`).first().waitFor();
    }
    const agents = page.getByTestId('breakdown-agent');
    for (const [agent, n] of Object.entries(sent.byAgent)) {
      t.equal(
        await agents.locator(`tr[data-key="${agent}"] td`).nth(1).textContent(),
        String(n),
        `${agent}: ${n} requests`,
      );
      t.ok(await agents.locator(`tr[data-key="${agent}"] svg.sparkline`).isVisible(), `${agent}: sparkline`);
    }
    await page.getByTestId('refusals').or(page.getByText('No refusals in this window.')).first().waitFor();
    t.match(await page.getByTestId('benched').textContent(), /slow-mock-[ab]/, 'the failing deployment is benched');
    for (const w of ['24h', '7d', '30d']) {
      await page.locator(`button[data-window="${w}"]`).click();
      await page.waitForURL(new RegExp(`window=${w}`));
      await page
        .getByTestId('total-requests')
        .filter({ hasText: String(sent.requests) })
        .waitFor();
    }
    await page.getByRole('tab', { name: 'Model groups' }).click();
    const groups = page.getByTestId('breakdown-model_group');
    t.equal(
      await groups.locator('tr[data-key="demo"] td').nth(1).textContent(),
      String(sent.requests - sent.errors),
      'per model group: demo',
    );
    t.equal(
      await groups.locator('tr[data-key="slow"] td').nth(1).textContent(),
      String(sent.errors),
      'per model group: slow',
    );
    await page.getByRole('tab', { name: 'Deployments' }).click();
    await page.getByTestId('series-link-demo-mock').click();
    await page.getByTestId('series-page-deployment').waitFor();
    t.equal(
      await page.getByTestId('total-requests').textContent(),
      String(sent.requests - sent.errors),
      'the deployment page',
    );
    await page.goBack();
    await page.getByTestId('breakdown-deployment').waitFor();
    await page.getByRole('button', { name: 'Custom…' }).click();
    const local = (ms: number) => new Date(ms - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel('From').fill(local(Date.now() - 2 * 3_600_000));
    await page.getByLabel('To').fill(local(Date.now() + 3_600_000));
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/from=.*to=/);
    await page
      .getByTestId('total-requests')
      .filter({ hasText: String(sent.requests) })
      .waitFor();
    t.pass('a custom range');
    await page.getByTestId('project-picker').selectOption('other');
    await page.waitForURL(/#\/p\/other\/metrics/);
    await page.getByTestId('total-requests').filter({ hasText: /^0$/ }).waitFor();
    t.pass('the project picker: another project has no traffic');
    await go('/p/default/metrics');
    await page.locator('[data-testid="chart-cost"] canvas').first().waitFor();
    await screenshot(page, '03-metrics');
  });

  await t.test('the per-agent page', async (t) => {
    await page.getByTestId('series-link-alpha').click();
    await page.getByTestId('series-page-agent').waitFor();
    t.equal(await page.getByTestId('total-requests').textContent(), String(sent.byAgent.alpha));
    t.equal(await page.getByTestId('total-errors').textContent(), '1');
    await page.locator('[data-testid="chart-latency"] canvas').first().waitFor();
    await screenshot(page, '04-agent-alpha');
    await go('/p/default/agents?window=1h');
    t.equal(
      await page.getByTestId('breakdown-agent').locator('tr[data-key="beta"] td').nth(1).textContent(),
      String(sent.byAgent.beta),
    );
    t.ok(await page.getByTestId('suspend-alpha').isVisible(), 'an owner may suspend');
    await screenshot(page, '05-agents');
  });

  await t.test('traces: the list filters, the waterfall of an error trace', async (t) => {
    await go('/p/default/traces');
    await page.getByTestId('traces').waitFor();
    t.equal(await page.getByTestId('trace-link').count(), sent.requests, 'every request is a trace');
    await screenshot(page, '06-traces');
    await page.getByLabel('Status').selectOption('error');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=error/);
    await page.getByTestId('traces').waitFor();
    t.equal(await page.getByTestId('trace-link').count(), sent.errors, 'the error filter');
    await page.getByTestId('trace-link').first().click();
    await page.getByTestId('waterfall').waitFor();
    t.ok((await page.getByTestId('waterfall-row').count()) >= 1, 'spans in the waterfall');
    t.match(await page.getByTestId('attempts').textContent(), /slow-mock-[ab]/, 'the attempt and its deployment');
    await page.getByTestId('waterfall-row').first().click();
    await page.getByTestId('span-details').waitFor();
    await screenshot(page, '07-trace-error');

    await go('/p/default/traces?agent=beta');
    await page.getByTestId('traces').waitFor();
    t.equal(await page.getByTestId('trace-link').count(), sent.byAgent.beta, 'the agent filter');
    await page.getByTestId('trace-link').first().click();
    await page.getByTestId('waterfall').waitFor();
    t.match(await page.getByTestId('trace-output').textContent(), /svc mock provider/, 'the output');
    t.notMatch(await page.getByTestId('trace-tokens').textContent(), /^–$/, 'tokens');
    await screenshot(page, '08-trace');
  });

  await t.test('a long trace list says its total is at least the count, until the end is in reach', async (t) => {
    await generateTraces(db, { projectId: 'other', count: 1100, from: '2026-01-01T00:00:00Z' });
    await go('/p/other/traces');
    await page.getByTestId('traces').waitFor();
    t.equal(
      await page.getByTestId('pager-range').textContent(),
      '1–50 of 1,000+',
      'counted 1,000 ahead: a lower bound',
    );
    await go('/p/other/traces?offset=1050');
    await page.getByTestId('pager-range').filter({ hasText: '1,051' }).waitFor();
    t.equal(await page.getByTestId('pager-range').textContent(), '1,051–1,100 of 1,100', 'exact at the end');
  });

  await t.test("an agent's trace shows the gateway calls its span made, in place", async (t) => {
    const traceId = 'c3'.repeat(16);
    const spanId = 'd4'.repeat(8);
    const at = new Date(Date.now() - 1000).toISOString();
    const ingest = await fetch(`${s.adminUrl}/api/public/ingestion`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basicAuth(apiKey) },
      body: JSON.stringify({
        batch: [
          {
            id: 'agent-trace',
            type: 'trace-create',
            timestamp: at,
            body: { id: traceId, name: 'research agent', timestamp: at },
          },
          {
            id: 'agent-span',
            type: 'span-create',
            timestamp: at,
            body: { id: spanId, traceId, name: 'draft answer', startTime: at, endTime: new Date().toISOString() },
          },
        ],
      }),
    });
    t.equal(ingest.status, 207);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${s.gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${minted.beta}`,
          traceparent: `00-${traceId}-${spanId}-01`,
        },
        body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: `step ${i}` }] }),
      });
      t.equal(res.status, 200);
      await res.arrayBuffer();
    }
    await waitFor('both calls traced', async () => {
      const r = await page.request.get(`${s.adminUrl}/dashboard/api/projects/default/traces/${traceId}`);
      return r.ok() && ((await r.json()) as any).gatewayCalls.length === 2;
    });
    await go(`/p/default/traces/${traceId}`);
    await page.getByTestId('waterfall').waitFor();
    const rows = page.getByTestId('waterfall-row');
    const names = await rows.allTextContents();
    t.match(names[0], /draft answer/, 'the agent span first');
    t.equal(names.filter((n) => /gateway demo → demo-mock/.test(n)).length, 2, 'its two gateway calls under it');
    t.equal(names.filter((n) => /attempt demo-mock/.test(n)).length, 2, 'each with its attempt');
    await rows.filter({ hasText: 'gateway demo' }).first().click();
    await page.getByTestId('gateway-call-details').waitFor();
    t.match(await page.getByTestId('gateway-call-cost').textContent(), /^\$0\.0+[1-9]/, 'the call carries its cost');
    t.match(await page.getByTestId('gateway-calls').textContent(), /^2 · \$0\.0+[1-9]/, 'the trace sums its calls');
    const cut = await page
      .locator('.wf-name')
      .evaluateAll((names) => names.filter((n) => n.scrollWidth > n.clientWidth).map((n) => n.textContent));
    t.same(cut, [], 'no span label is cut off');
    await screenshot(page, '08b-agent-trace-gateway-calls');
  });

  /** The trace page of a gateway answer, once its trace is stored. */
  async function traceOf(res: Response) {
    const id = res.headers.get('x-svc-request-id')!;
    await waitFor(`trace ${id}`, async () =>
      (await page.request.get(`${s.adminUrl}/dashboard/api/projects/default/traces/${id}`)).ok(),
    );
    await go(`/p/default/traces/${id}`);
    await page.getByTestId('trace-page').waitFor();
  }

  await t.test(
    'a prompt refused for a credential: the trace page shows where it was, never the credential',
    async (t) => {
      const res = await fetch(`${s.gatewayUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${minted.beta}` },
        body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: `deploy with ${AWS_KEY} please` }] }),
      });
      t.equal(res.status, 400);
      t.equal(((await res.json()) as any).error.code, 'guardrail_blocked');
      await traceOf(res);
      t.match(
        await page.getByTestId('trace-input').textContent(),
        /deploy with \[REDACTED:secrets\.aws_access_key\] please/,
      );
      t.match(
        await page.locator('main.content').textContent(),
        /gateway\.redactions/,
        'the record of where, in the metadata',
      );
      t.notOk((await page.content()).includes(AWS_KEY), 'the credential is nowhere on the page');
      await page.getByText('This trace has no spans.').waitFor();
      t.equal(
        await page.getByText('Select an observation for its details.').count(),
        0,
        'no span details beside a waterfall that is not there',
      );
      await screenshot(page, '19-trace-redacted');
    },
  );

  await t.test('an embeddings trace shows its cost; a stream’s attempt is as long as its span', async (t) => {
    const embedded = await fetch(`${s.gatewayUrl}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${minted.beta}` },
      body: JSON.stringify({ model: 'demo', input: 'a short text to embed' }),
    });
    t.equal(embedded.status, 200);
    const usage = ((await embedded.json()) as any).usage;
    const cost = (usage.prompt_tokens * PRICE.input_per_mtok) / 1e6;
    t.ok(cost > 0 && cost < 0.000001, `a fraction of a millionth of a dollar (${cost})`);
    await traceOf(embedded);
    const shown = (await page.getByTestId('trace-cost').textContent())!;
    t.match(shown, /^\$0\.0+[1-9]/, `significant digits, not $0.000000: ${shown}`);
    t.ok(Math.abs(Number(shown.slice(1)) - cost) / cost < 0.01, `${shown} ≈ ${cost}`);
    await screenshot(page, '20-trace-embeddings');

    const streamed = await fetch(`${s.gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${minted.beta}` },
      body: JSON.stringify({
        model: 'demo',
        stream: true,
        messages: [{ role: 'user', content: 'stream a few words back to me' }],
      }),
    });
    await streamed.text();
    await traceOf(streamed);
    await page.getByTestId('waterfall').waitFor();
    const spanTime = (await page.getByTestId('waterfall-row').first().locator('.wf-dur').textContent())!;
    const attemptTime = (await page.getByTestId('attempts').locator('tbody tr td').nth(5).textContent())!;
    t.match(attemptTime, /^\d+ ms \(first chunk \d+ ms\)$/, attemptTime);
    t.equal(attemptTime.split(' (')[0], spanTime, 'the attempt says as long as its span');
    await screenshot(page, '21-trace-stream');
  });

  await t.test('a webhook automation: the secret shown once signs a delivery the receiver verifies', async (t) => {
    await go('/p/default/automations');
    const form = page.getByTestId('automation-form');
    await form.getByLabel('Name', { exact: true }).fill('prompt hook');
    await form.getByRole('textbox', { name: 'URL' }).fill(`${hook.url}/hook`);
    await form.getByLabel(/Headers/).fill('X-Team: prompts');
    await page.getByTestId('save-automation').click();
    await page.getByTestId('automation-page').waitFor();
    hook.state.secret = await page.getByTestId('signing-secret').inputValue();
    t.match(hook.state.secret, /^whsec_/, 'the signing secret is shown');
    await screenshot(page, '09-automation-created');

    const created = await fetch(`${s.adminUrl}/api/public/v2/prompts`, {
      method: 'POST',
      headers: { authorization: basicAuth(apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'support/greeting',
        type: 'text',
        prompt: 'Hello {{name}}\nHow can I help?',
        labels: ['production'],
      }),
    });
    t.equal(created.status, 201, 'a prompt version is created');
    const delivery = await waitFor('a delivery', async () => hook.received[0]);
    t.ok(delivery.verified, 'the signature verifies with the secret the page showed');
    t.match(JSON.parse(delivery.body), {
      type: 'prompt-version',
      action: 'created',
      prompt: { name: 'support/greeting' },
    });

    await page.reload();
    await page.getByTestId('deliveries').waitFor();
    t.match(await page.getByTestId('deliveries').textContent(), /200/, 'the delivery log shows the answer status');
    t.match(
      await page.getByTestId('deliveries').textContent(),
      /received by the test receiver/,
      'and the start of the answer',
    );
    t.equal(await page.getByTestId('signing-secret').count(), 0, 'the secret is not shown again');
    await screenshot(page, '10-automation-deliveries');

    // A rotated secret signs what is sent next: resend the delivery and verify it with the new one only.
    await page.getByTestId('rotate-secret').click();
    await page.getByTestId('signing-secret').waitFor();
    const rotated = await page.getByTestId('signing-secret').inputValue();
    t.not(rotated, hook.state.secret, 'a new secret');
    hook.state.secret = rotated;
    await page.getByTestId('resend').first().click();
    const resent = await waitFor('the resent delivery', async () => hook.received[1]);
    t.ok(resent.verified, 'the resent delivery verifies with the rotated secret');
    t.equal(JSON.parse(resent.body).id, JSON.parse(delivery.body).id, 'the same event again');
    await page.getByTestId('toggle-automation').click();
    await page.getByTestId('automation-page').locator('.page-header .badge', { hasText: 'disabled' }).waitFor();
    await page.getByTestId('toggle-automation').filter({ hasText: 'Enable' }).click();
    await page.getByTestId('automation-page').locator('.page-header .badge', { hasText: 'enabled' }).waitFor();
    t.pass('disable and enable');
  });

  await t.test('suspending an agent refuses its keys until it is resumed', async (t) => {
    await go('/p/default/agents');
    await page.getByTestId('suspend-alpha').click();
    await page.getByTestId('resume-alpha').waitFor();
    const refused = await fetch(`${s.gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${minted.alpha}` },
      body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'suspended?' }] }),
    });
    t.equal(refused.status, 401);
    t.equal(((await refused.json()) as any).error.code, 'key_blocked');
    await page.getByTestId('resume-alpha').click();
    await page.getByTestId('suspend-alpha').waitFor();
  });

  await t.test('blocking a key: the gateway refuses it with 401 key_blocked', async (t) => {
    await go('/p/default/keys');
    await page.getByTestId('block-beta-key').click();
    await page.getByTestId('unblock-beta-key').waitFor();
    t.match(await page.locator('tr[data-alias="beta-key"]').textContent(), /blocked/);
    const res = await fetch(`${s.gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${minted.beta}` },
      body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'still there?' }] }),
    });
    t.equal(res.status, 401);
    t.equal(((await res.json()) as any).error.code, 'key_blocked');
    await screenshot(page, '11-keys-blocked');
  });

  await t.test(
    "turning the project's serving off refuses its keys with 401 invalid_api_key until it is on again",
    async (t) => {
      // GET /v1/models: no spend, so the budgets page later still shows only the traffic sent above.
      const ask = async () => {
        const res = await fetch(`${s.gatewayUrl}/v1/models`, { headers: { authorization: `Bearer ${minted.alpha}` } });
        return res.status === 200 ? '200' : `${res.status} ${((await res.json()) as any).error.code}`;
      };
      await go('/p/default/keys');
      t.match(await page.getByTestId('serving').textContent(), /serving/);
      await page.getByTestId('toggle-serving').click();
      await page.getByTestId('serving').getByText('Turned off here').waitFor();
      t.equal(await ask(), '401 invalid_api_key', 'the minted key is refused');
      await screenshot(page, '11b-serving-off');
      await page.getByTestId('toggle-serving').click();
      await page.getByTestId('serving').getByText('The gateway serves').waitFor();
      t.equal(await ask(), '200', 'served again');
    },
  );

  await t.test('the other pages render', async (t) => {
    const second = await fetch(`${s.adminUrl}/api/public/v2/prompts`, {
      method: 'POST',
      headers: { authorization: basicAuth(apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'support/greeting',
        type: 'text',
        prompt: 'Hello {{name}}\nHow may I help you today?',
        commitMessage: 'warmer',
      }),
    });
    t.equal(second.status, 201);
    await go('/p/default/prompts');
    await page.getByRole('link', { name: 'greeting' }).click();
    await page.getByTestId('versions').waitFor();
    t.match(
      await page.getByTestId('prompt-text').textContent(),
      /How may I help you today\?/,
      'the newest version first',
    );
    // The diff and label controls are tested in dashboard-prompts.test.ts; here a move's signed webhook delivery.
    await page.getByTestId('promote-production').click();
    await page.getByTestId('remove-label-production').waitFor();
    await page.getByTestId('label-input').fill('staging');
    await page.getByTestId('add-label').click();
    await page.getByTestId('versions').locator('li').first().filter({ hasText: 'staging' }).waitFor();
    t.notMatch(
      await page.getByTestId('versions').locator('li').nth(1).textContent(),
      /production/,
      'production moved off version 1',
    );
    await screenshot(page, '12-prompt');
    // The label move is an `updated` event of version 2: delivered, signed, like every event before it.
    const moved = await waitFor('the label move delivered', async () =>
      hook.received.find(
        (d) => JSON.parse(d.body).action === 'updated' && JSON.parse(d.body).prompt.labels.includes('staging'),
      ),
    );
    t.match(JSON.parse(moved.body).prompt, { version: 2, labels: ['latest', 'production', 'staging'] });
    t.ok(
      hook.received.every((d) => d.verified),
      'every delivery verifies',
    );
    await go('/p/default/automations');
    await page.getByTestId('automation-link').click();
    await page.getByTestId('delete-automation').click();
    await page.getByText('No automations yet.').waitFor();
    t.pass('the automation is deleted');
    await go('/p/default/model-groups');
    await page.getByTestId('model-group-demo').waitFor();
    await screenshot(page, '13-model-groups');
    await go('/p/default/budgets');
    const budget = page.getByTestId('budgets').locator('tr', { hasText: 'alpha-key' });
    t.match(await budget.textContent(), /hard.*total.*\$2\.00/, 'the minted key budget');
    t.notMatch(await page.getByTestId('budgets').textContent(), /total \(total\)/, 'a period said once');
    const today = new Date().toISOString().slice(0, 10);
    t.match(
      await page.getByTestId('budgets').locator('tr', { hasText: 'Default' }).textContent(),
      `daily (${today} UTC)`,
      'a daily budget names its day',
    );
    const spent = Number((await budget.locator('td').nth(4).textContent())!.replace('$', ''));
    t.ok(Math.abs(spent - sent.costByAgent.alpha!) < 1e-6, `spent ${spent} ≈ ${sent.costByAgent.alpha}`);
    await screenshot(page, '14-budgets');
    await go('/p/default/users');
    await page.getByTestId('users').waitFor();
    await page.getByLabel('Email').fill('new@example.test');
    await page.locator('form select[name="role"]').selectOption('member');
    await page.getByRole('button', { name: 'Add user' }).click();
    t.match(await page.getByTestId('user-password').inputValue(), /\S{12,}/, 'the new password is shown once');
    t.match(await page.getByTestId('users').textContent(), /new@example\.test/);
    await screenshot(page, '15-users');
    await go('/p/default/audit');
    await page.getByTestId('audit').waitFor();
    t.match(await page.getByTestId('audit').textContent(), /gateway_key\.block/);
    t.match(await page.getByTestId('audit').textContent(), /project\.serving_off/);
    await screenshot(page, '16-audit');
  });

  await t.test('a member manages keys but not users', async (t) => {
    const member = await (await browser.newContext({ viewport: { width: 1360, height: 900 } })).newPage();
    await signIn(member, 'member@example.test');
    await member.goto(`${dash}#/p/default/keys`);
    await member.getByTestId('unblock-beta-key').waitFor();
    t.ok(await member.getByTestId('mint-key').isVisible(), 'the mint form');
    t.equal(await member.getByTestId('toggle-serving').count(), 0, 'no serving switch: admins only');
    await member.goto(`${dash}#/p/default/users`);
    await member.getByTestId('users').waitFor();
    t.equal(await member.getByRole('button', { name: 'Add user' }).count(), 0, 'no user management');
    await member.close();
  });

  await t.test('a member changes their own password from the user menu', async (t) => {
    const member = await (await browser.newContext({ viewport: { width: 1360, height: 900 } })).newPage();
    await signIn(member, 'member@example.test');
    await member.getByTestId('change-password').click();
    await member.getByRole('heading', { level: 1, name: 'Change password' }).waitFor();
    const change = async (current: string, next: string) => {
      await member.getByTestId('current-password').fill(current);
      await member.getByTestId('new-password').fill(next);
      await member.getByTestId('repeat-password').fill(next);
      await member.getByRole('button', { name: 'Change password' }).click();
    };
    await change('not the password', 'a brand new passphrase');
    await member.getByTestId('password-error').filter({ hasText: 'The current password is wrong' }).waitFor();
    t.pass('a wrong current password is shown');
    await change(password, 'a brand new passphrase');
    await member.getByTestId('password-changed').waitFor();
    await screenshot(member, '18-password');
    // A second change goes through only with the fresh session cookie and CSRF token of the first.
    await change('a brand new passphrase', 'yet another passphrase');
    await member.getByTestId('password-changed').waitFor();
    t.equal(await member.getByTestId('password-error').textContent(), '', 'no error');
    const old = await member.request.post(`${s.adminUrl}/dashboard/api/session`, {
      data: { email: 'member@example.test', password },
    });
    t.equal(old.status(), 401, 'the old password is refused');
    await member.close();
  });

  await t.test('a viewer sees no change controls, and the server refuses a forced change', async (t) => {
    const viewer = await (await browser.newContext({ viewport: { width: 1360, height: 900 } })).newPage();
    await signIn(viewer, 'viewer@example.test');
    for (const [hash, heading] of [
      ['/p/default/keys', 'Gateway keys'],
      ['/p/default/automations', 'Automations'],
      ['/p/default/agents', 'Agents'],
      ['/p/default/prompts/support%2Fgreeting', 'support/greeting'],
      ['/p/default/users', 'Users'],
    ] as const) {
      await viewer.goto(`${dash}#${hash}`);
      await viewer.getByRole('heading', { level: 1, name: heading }).waitFor();
      t.equal(
        await viewer
          .locator('main.content button:not(.seg)')
          .filter({ hasNotText: /Newer|Older|Apply|Custom/ })
          .count(),
        0,
        `${hash}: no change buttons`,
      );
      t.equal(await viewer.locator('main.content form.form').count(), 0, `${hash}: no forms`);
      t.equal(await viewer.getByTestId('labels-input').count(), 0, `${hash}: no label editor`);
      if (hash.endsWith('keys') || hash.includes('prompts'))
        await screenshot(viewer, `17-viewer-${hash.split('/')[3]}`);
    }
    const forced = await viewer.evaluate(async () => {
      const session = await (await fetch('/dashboard/api/session')).json();
      const keys = await (await fetch('/dashboard/api/projects/default/keys')).json();
      const r = await fetch(`/dashboard/api/projects/default/keys/${keys.data[0].id}/block`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-csrf': session.csrfToken },
        body: '{}',
      });
      return { status: r.status, body: await r.json() };
    });
    t.equal(forced.status, 403);
    t.equal(forced.body.error.code, 'permission_denied');
  });

  await t.test('sign-out ends the session', async (t) => {
    await page.getByTestId('sign-out').click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const after = await page.request.get(`${s.adminUrl}/dashboard/api/session`);
    t.equal(after.status(), 401);
    await page.goto(`${dash}#/p/default/metrics`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    t.pass('the dashboard asks to sign in again');
  });

  t.same(pageErrors, [], 'no uncaught errors in the page');
});
