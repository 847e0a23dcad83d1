// The dashboard's data routes for traces, prompts, automations, gateway keys, agents, model groups and budgets
// (docs/dashboard.md), on both store backends with real gateway traffic through the mock model group: every route
// refuses a missing session and API keys, viewers on every change and a change without the CSRF token; trace filters
// and detail; a label move firing signed prompt-version webhooks to a local receiver; automations (secret shown
// once, target URLs whole for members only and host-only in audit rows, SSRF rules, the delivery log, resend); keys minted, blocked, rotated with a grace window and deleted, seen by
// the gateway at once; agent suspension; model group state; budget spend; the audit rows.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import t from 'tap';
import { systemClock } from '../../src/platform/clock.ts';
import { addAgent } from '../../src/platform/store/repos/agents.ts';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { listAudit } from '../../src/platform/store/repos/audit-log.ts';
import { upsertScores } from '../../src/platform/store/repos/scores.ts';
import { verifySignature } from '../../src/observability/webhooks/signature.ts';
import { dashboardRequest, signIn, type DashboardClient } from '../helpers/dashboard.ts';
import { generateTraces } from '../helpers/generated-traces.ts';
import { listenLocally } from '../helpers/local-server.ts';
import { basicAuth, callAdmin } from '../helpers/public-api.ts';
import { baseConfig, chatBody, startTestService, TEST_KEY, type TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';
import { waitFor } from '../helpers/wait-for.ts';

const HOUR = 3_600_000;
const P = '/projects/default';
const error = (code: string) => ({ error: { code, message: String } });

const config = () =>
  baseConfig({
    projects: [
      {
        id: 'default',
        name: 'Default',
        max_key_expiry_hours: 24,
        budgets: [{ usd: 50, period: 'daily', mode: 'hard' }],
      },
      { id: 'other', name: 'Other' },
    ],
    agents: [
      { id: 'agent-a', project: 'default', name: 'Agent A', budgets: [{ usd: 100, period: 'monthly', mode: 'soft' }] },
    ],
    keys: [
      { alias: 'test', key: TEST_KEY, project: 'default', agent: 'agent-a', model_groups: ['demo'], budget_usd: 10 },
    ],
    // The local receiver's range is allowed; every other private address stays refused (the SSRF rules).
    webhooks: {
      allow_private_networks: false,
      allowed_hosts: ['127.0.0.0/8'],
      timeout_ms: 2_000,
      max_attempts: 3,
      retry_base_ms: 40,
      retry_max_ms: 150,
      poll_ms: 30,
    },
    plugins: [{ use: 'auth' }, { use: 'budget' }, { use: 'router' }, { use: 'tracing' }],
  });

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

async function receiver(t: { teardown(fn: () => unknown): void }) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok: received');
    });
  });
  const local = await listenLocally(server);
  t.teardown(() => {
    server.closeAllConnections();
    return local.close();
  });
  return { url: local.url, at: (path: string) => received.filter((r) => r.path === path) };
}

const chat = (s: TestService, key: string, headers: Record<string, string> = {}) =>
  fetch(`${s.gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(chatBody({ max_tokens: 20 })),
  });

/** The gateway's answer to a key: 200, or the refusal's status and code. */
async function gatewayAnswer(s: TestService, key: string): Promise<string> {
  const res = await chat(s, key);
  const body = (await res.json()) as any;
  return res.status === 200 ? '200' : `${res.status} ${body.error?.code}`;
}

/** Every route of these areas, with a body for the changes (the checks under test run before the body is read). */
const ROUTES: [string, string, unknown?][] = [
  ['GET', `${P}/traces`],
  ['GET', `${P}/traces/t-1`],
  ['GET', `${P}/prompts`],
  ['GET', `${P}/prompts/folder%2Fname`],
  ['PUT', `${P}/prompts/folder%2Fname/versions/1/labels`, { labels: ['production'] }],
  ['GET', `${P}/automations`],
  [
    'POST',
    `${P}/automations`,
    { name: 'x', events: ['created'], action: { type: 'webhook', url: 'http://127.0.0.1:9/x' } },
  ],
  ['PATCH', `${P}/automations/a-1`, { name: 'y' }],
  ['DELETE', `${P}/automations/a-1`],
  ['POST', `${P}/automations/a-1/rotate-secret`],
  ['GET', `${P}/automations/a-1/deliveries`],
  ['POST', `${P}/automations/a-1/deliveries/e-1/resend`],
  ['GET', '/model-groups'],
  ['GET', `${P}/keys`],
  ['POST', `${P}/keys`, { agentId: 'agent-a', modelGroups: ['demo'], expiresInHours: 1 }],
  ['POST', `${P}/keys/k-1/block`],
  ['POST', `${P}/keys/k-1/unblock`],
  ['POST', `${P}/keys/k-1/rotate`, { graceHours: 1 }],
  ['DELETE', `${P}/keys/k-1`],
  ['GET', `${P}/agents`],
  ['POST', `${P}/agents/agent-a/suspend`],
  ['POST', `${P}/agents/agent-a/resume`],
  ['GET', `${P}/budgets`],
  ['GET', `${P}/serving`],
  ['PUT', `${P}/serving`, { serving: true }],
];

for (const backend of STORE_BACKENDS) {
  t.test(`dashboard data routes on ${backend}`, async (t) => {
    let offsetMs = 0;
    const clock = { now: () => Date.now() + offsetMs, sleep: systemClock.sleep };
    const hook = await receiver(t);
    const s = await startTestService(t, config(), { backend, clock });
    const db = s.service.db;
    await addAgent(db, { id: 'agent-b', projectId: 'default', name: 'Agent B' });
    const owner = await signIn(s, 'owner@localhost', s.service.firstOwner!.password);
    const users: Record<string, DashboardClient> = {};
    for (const role of ['member', 'viewer']) {
      const r = await owner.call('POST', '/users', { email: `${role}@example.com`, role });
      users[role] = await signIn(s, `${role}@example.com`, r.body.password);
    }
    const { member, viewer } = users as { member: DashboardClient; viewer: DashboardClient };

    t.test(
      'every route: no session and API keys are 401, viewers may not change, changes need the CSRF token',
      async (t) => {
        const projectKey = await createApiKey(db, {
          kind: 'project',
          organizationId: 'default',
          projectId: 'default',
          now: Date.now(),
        });
        const foreign: Record<string, string>[] = [
          {},
          { authorization: basicAuth(projectKey) },
          { authorization: `Bearer ${projectKey.secretKey}` },
          { authorization: `Bearer ${TEST_KEY}` },
        ];
        for (const [method, path, body] of ROUTES) {
          for (const headers of foreign) {
            t.match(
              await dashboardRequest(s, method, path, headers, body),
              { status: 401, body: error('unauthenticated') },
              `${method} ${path} ${Object.keys(headers)}`,
            );
          }
          if (method === 'GET') {
            t.notOk([401, 403].includes((await viewer.call(method, path)).status), `a viewer may read ${path}`);
            continue;
          }
          t.match(
            await viewer.call(method, path, body),
            { status: 403, body: error('permission_denied') },
            `viewer ${method} ${path}`,
          );
          t.match(
            await member.call(method, path, body, { csrf: false }),
            { status: 403, body: error('csrf_failed') },
            `no CSRF ${method} ${path}`,
          );
        }
      },
    );

    t.test('traces: filters over gateway traffic, and the detail with spans, attempts and scores', async (t) => {
      for (const [user, tags] of [
        ['u1', 'prod,team:a'],
        ['u1', 'team:a'],
        ['u2', 'team:b'],
      ]) {
        const res = await chat(s, TEST_KEY, { 'svc-user-id': user, 'svc-session-id': `s-${user}`, 'svc-tags': tags });
        t.equal(res.status, 200);
        await res.arrayBuffer();
      }
      const all = await waitFor('three traces', async () => {
        const r = await viewer.call('GET', `${P}/traces`);
        return r.body.pagination.total >= 3 && r.body;
      });
      t.equal(all.data.length, 3);
      t.match(all.data[0], {
        name: 'chat.completions',
        status: 'completed',
        modelGroup: 'demo',
        deployment: 'demo-mock',
        agentId: 'agent-a',
        agentName: 'Agent A',
        tokens: Number,
        cost: Number,
        duration: Number,
      });
      t.notOk('input' in all.data[0], 'the list leaves content out');
      const count = async (query: string) => {
        const r = await viewer.call('GET', `${P}/traces?${query}`);
        t.equal(r.status, 200, query);
        return r.body.pagination.total;
      };
      t.equal(await count('userId=u1'), 2);
      t.equal(await count('sessionId=s-u2'), 1);
      t.equal(await count('tag=team:b'), 1, 'a tag sent as svc-tags: team:b is found as team:b');
      t.equal(await count('tag=team:a'), 2);
      t.equal(await count('tag=prod'), 1, 'a bare tag by its name');
      t.equal(await count('tag=team:a&tag=team:b'), 0, 'every tag must match');
      t.equal(await count('status=completed'), 3);
      t.equal(await count('status=error'), 0);
      t.equal(await count('modelGroup=demo'), 3);
      t.equal(await count('modelGroup=other'), 0);
      t.equal(await count('agent=agent-a'), 3, 'agent by id');
      t.equal(await count('agent=Agent%20A'), 3, 'agent by name');
      t.equal(await count('agent=agent-b'), 0);
      t.equal(await count('q=COMPLETION'), 3, 'name contains, any case');
      t.equal(await count('q=embed'), 0);
      t.equal(await count(`from=${encodeURIComponent(new Date(Date.now() + HOUR).toISOString())}`), 0);
      t.equal(await count(`to=${encodeURIComponent(new Date(Date.now() + HOUR).toISOString())}`), 3);
      const page = await viewer.call('GET', `${P}/traces?limit=2&offset=2`);
      t.match(
        [page.body.data.length, page.body.pagination],
        [1, { limit: 2, offset: 2, total: 3, totalIsLowerBound: false, next: null, previous: String }],
      );
      // Counted 1,000 past the page: a lower bound for a long list, exact once the end is in reach.
      await generateTraces(db, { projectId: 'other', count: 1100, from: '2026-01-01T00:00:00Z' });
      const long = await viewer.call('GET', '/projects/other/traces');
      t.match(long.body.pagination, { limit: 50, offset: 0, total: 1000, totalIsLowerBound: true, next: String });
      const end = await viewer.call('GET', '/projects/other/traces?offset=1050');
      t.match(end.body.pagination, { limit: 50, offset: 1050, total: 1100, totalIsLowerBound: false, next: null });
      t.match(await viewer.call('GET', `${P}/traces?limit=201`), { status: 400, body: error('invalid_request') });
      t.equal((await viewer.call('GET', `${P}/traces?limit=200`)).status, 200);
      t.match(await viewer.call('GET', `${P}/traces?status=done`), { status: 400, body: error('invalid_request') });
      t.match(await viewer.call('GET', '/projects/nope/traces'), { status: 404, body: error('not_found') });

      const id = all.data[0].id;
      await upsertScores(db, [
        {
          projectId: 'default',
          id: 'score-1',
          traceId: id,
          name: 'quality',
          dataType: 'NUMERIC',
          value: 0.9,
          stringValue: null,
          source: 'API',
          environment: 'default',
          timestamp: new Date().toISOString(),
        },
      ]);
      const detail = await viewer.call('GET', `${P}/traces/${id}`);
      t.equal(detail.status, 200);
      t.match(detail.body, {
        id,
        status: 'completed',
        input: Array,
        output: { role: 'assistant' },
        metadata: { 'gateway.key': 'test' },
      });
      t.ok(detail.body.tokens > 0 && detail.body.cost > 0, 'tokens and cost');
      t.equal(detail.body.spans.length, 1);
      t.match(detail.body.spans[0], {
        id: `${id}.1`,
        parentId: null,
        startTime: String,
        endTime: String,
        type: 'GENERATION',
        status: 'ok',
      });
      t.match(detail.body.attempts, [{ d: 'demo-mock', o: 'ok', ms: Number, provider: 'mock', spanId: `${id}.1` }]);
      t.match(detail.body.scores, [{ id: 'score-1', name: 'quality', value: 0.9, dataType: 'NUMERIC' }]);
      t.match(await viewer.call('GET', `${P}/traces/nope`), { status: 404, body: error('not_found') });
    });

    t.test('traces: an agent trace shows the gateway calls its spans made, with cost and attempts', async (t) => {
      const agentTrace = 'a1'.repeat(16);
      const agentSpan = 'b2'.repeat(8);
      const projectKey = await createApiKey(db, {
        kind: 'project',
        organizationId: 'default',
        projectId: 'default',
        now: Date.now(),
      });
      const at = new Date().toISOString();
      const ingested = await callAdmin(s, 'POST', '/api/public/ingestion', basicAuth(projectKey), {
        batch: [
          {
            id: 'e-trace',
            type: 'trace-create',
            timestamp: at,
            body: { id: agentTrace, name: 'agent run', timestamp: at },
          },
          {
            id: 'e-span',
            type: 'span-create',
            timestamp: at,
            body: { id: agentSpan, traceId: agentTrace, name: 'plan', startTime: at },
          },
        ],
      });
      t.equal(ingested.status, 207);
      const calls = [];
      for (let i = 0; i < 2; i++) {
        const res = await chat(s, TEST_KEY, { traceparent: `00-${agentTrace}-${agentSpan}-01` });
        t.equal(res.status, 200);
        await res.arrayBuffer();
        calls.push(res.headers.get('x-svc-request-id'));
      }
      const detail = await waitFor('the agent trace with its two gateway calls', async () => {
        const r = await viewer.call('GET', `${P}/traces/${agentTrace}`);
        return r.status === 200 && r.body.gatewayCalls.length === 2 && r.body;
      });
      t.same(detail.gatewayCalls.map((c: any) => c.id).sort(), [...calls].sort());
      for (const call of detail.gatewayCalls) {
        t.match(call, {
          parentSpanId: agentSpan,
          modelGroup: 'demo',
          deployment: 'demo-mock',
          status: 'completed',
          tokens: Number,
          attempts: [{ d: 'demo-mock', o: 'ok', ms: Number }],
        });
        t.ok(call.cost > 0, 'each call carries its cost');
      }
      const gatewayTrace = await viewer.call('GET', `${P}/traces/${calls[0]}`);
      t.match(gatewayTrace.body, { parentTraceId: agentTrace, parentSpanId: agentSpan, gatewayCalls: [] });
      const publicTrace = await callAdmin(s, 'GET', `/api/public/traces/${calls[0]}`, basicAuth(projectKey));
      t.match(publicTrace.body, { parentTraceId: agentTrace, parentObservationId: agentSpan });
    });

    t.test('prompts: names with folders and every version of a name', async (t) => {
      const projectKey = await createApiKey(db, {
        kind: 'project',
        organizationId: 'default',
        projectId: 'default',
        now: Date.now(),
      });
      for (const labels of [['production'], []]) {
        const res = await fetch(`${s.adminUrl}/api/public/v2/prompts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: basicAuth(projectKey) },
          body: JSON.stringify({ name: 'folder/greeting', type: 'text', prompt: 'Hello {{name}}', labels }),
        });
        t.equal(res.status, 201);
      }
      const names = await viewer.call('GET', `${P}/prompts`);
      t.match(names.body.data, [
        { name: 'folder/greeting', folder: 'folder', type: 'text', versions: [1, 2], labels: ['production', 'latest'] },
      ]);
      const all = await viewer.call('GET', `${P}/prompts/folder%2Fgreeting`);
      t.equal(all.status, 200);
      t.same(
        all.body.versions.map((v: any) => [v.version, v.labels]),
        [
          [1, ['production']],
          [2, ['latest']],
        ],
      );
      t.match(await viewer.call('GET', `${P}/prompts/nope`), { status: 404, body: error('not_found') });
    });

    const automationIds: Record<string, string> = {};
    let secret = '';

    t.test('automations: the secret is shown once, lists hold none, the SSRF rules apply', async (t) => {
      const created = await member.call('POST', `${P}/automations`, {
        name: 'prompts hook',
        events: ['updated'],
        action: { type: 'webhook', url: `${hook.url}/main`, headers: { 'X-Token': 'header-secret' } },
      });
      t.equal(created.status, 201);
      t.match(created.body, {
        automation: {
          id: String,
          name: 'prompts hook',
          events: ['updated'],
          action: { type: 'webhook', url: `${hook.url}/main`, headers: ['X-Token'] },
          enabled: true,
        },
        signingSecret: /^whsec_/,
      });
      automationIds.main = created.body.automation.id;
      secret = created.body.signingSecret;
      const pd = await member.call('POST', `${P}/automations`, {
        name: 'pager',
        events: ['deleted'],
        action: { type: 'pagerduty', routingKey: 'R0UTING-KEY' },
      });
      t.equal(pd.status, 201);
      t.notOk('signingSecret' in pd.body, 'only webhooks have a secret');
      automationIds.pd = pd.body.automation.id;
      const list = await viewer.call('GET', `${P}/automations`);
      t.same(
        list.body.data.map((a: any) => a.name),
        ['prompts hook', 'pager'],
      );
      const text = JSON.stringify(list.body);
      for (const hidden of ['whsec_', 'R0UTING-KEY', 'header-secret'])
        t.notOk(text.includes(hidden), `the list never holds ${hidden}`);
      const host = new URL(hook.url).host;
      t.same(
        list.body.data.map((a: any) => a.action.url),
        [`http://${host}/…`, null],
        'viewers get the URL without path and query',
      );
      t.same(
        (await member.call('GET', `${P}/automations`)).body.data.map((a: any) => a.action.url),
        [`${hook.url}/main`, null],
        'members get it whole',
      );
      const audit = await viewer.call('GET', '/audit?limit=200');
      const createdRow = audit.body.data.find(
        (r: any) => r.action === 'automation.create' && r.target === `automation:${automationIds.main}`,
      );
      t.match(createdRow, { details: { type: 'webhook', host } }, 'audit rows keep only the host');
      t.notOk(JSON.stringify(audit.body).includes('/main'), 'viewers never read the URL in the audit log');

      const refused = async (action: Record<string, unknown>, field: RegExp) => {
        const r = await member.call('POST', `${P}/automations`, { name: 'bad', action });
        t.match(r, { status: 400, body: error('invalid_request') }, JSON.stringify(action));
        t.match(r.body.error.message, field);
      };
      await refused(
        { type: 'webhook', url: 'http://10.0.0.7/hook' },
        /^action\.url is refused: 10\.0\.0\.7, a private address/,
      );
      await refused({ type: 'webhook', url: 'http://[::ffff:169.254.169.254]/x' }, /^action\.url is refused/);
      await refused({ type: 'webhook', url: 'ftp://127.0.0.1/x' }, /^action\.url must be an http or https URL/);
      await refused({ type: 'webhook' }, /^action\.url is required/);
      await refused({ type: 'slack', url: `${hook.url}/s`, headers: { a: 'b' } }, /^action\.headers are for webhook/);
      await refused({ type: 'pagerduty' }, /^action\.routingKey is required/);
      t.match(
        await member.call('POST', `${P}/automations`, {
          name: 'x',
          events: [],
          action: { type: 'slack', url: `${hook.url}/s` },
        }),
        { status: 400, body: error('invalid_request') },
      );
      t.equal((await viewer.call('GET', `${P}/automations`)).body.data.length, 2, 'nothing refused was stored');
    });

    t.test('prompts: setting the labels of a version moves them and fires prompt-version webhooks', async (t) => {
      const moved = await member.call('PUT', `${P}/prompts/folder%2Fgreeting/versions/2/labels`, {
        labels: ['production', 'staging'],
      });
      t.equal(moved.status, 200);
      t.match(moved.body, { name: 'folder/greeting', version: 2, labels: ['latest', 'production', 'staging'] });
      const after = await viewer.call('GET', `${P}/prompts/folder%2Fgreeting`);
      t.same(
        after.body.versions.map((v: any) => v.labels),
        [[], ['latest', 'production', 'staging']],
        'production left version 1',
      );
      const got = await waitFor('two updated events', async () => hook.at('/main').length >= 2 && hook.at('/main'));
      const bodies = got.map((r) => JSON.parse(r.body));
      t.same(bodies.map((b) => [b.action, b.prompt.version]).sort(), [
        ['updated', 1],
        ['updated', 2],
      ]);
      t.ok(
        got.every(
          (r) =>
            verifySignature(secret, r.body, String(r.headers['x-svc-signature']), Math.floor(Date.now() / 1000)).ok,
        ),
        'signed with the secret shown once',
      );
      t.ok(got.every((r) => r.headers['x-token'] === 'header-secret'));

      // Exactly these labels: staging goes, the server's `latest` stays.
      const exact = await member.call('PUT', `${P}/prompts/folder%2Fgreeting/versions/2/labels`, {
        labels: ['production'],
      });
      t.same(exact.body.labels, ['latest', 'production']);
      t.match(await member.call('PUT', `${P}/prompts/folder%2Fgreeting/versions/1/labels`, { labels: ['latest'] }), {
        status: 400,
        body: error('invalid_request'),
      });
      t.match(await member.call('PUT', `${P}/prompts/folder%2Fgreeting/versions/9/labels`, { labels: ['x'] }), {
        status: 404,
        body: error('not_found'),
      });
      t.match(await member.call('PUT', `${P}/prompts/folder%2Fgreeting/versions/1/labels`, { labels: ['Bad Label'] }), {
        status: 400,
        body: error('invalid_request'),
      });
    });

    t.test('automations: the delivery log, resend, patch, secret rotation and delete', async (t) => {
      const id = automationIds.main;
      const log = await waitFor('three logged attempts', async () => {
        const r = await viewer.call('GET', `${P}/automations/${id}/deliveries`);
        return r.body.pagination.total >= 3 && r.body;
      });
      t.match(log.data[0], {
        id: Number,
        eventId: String,
        action: 'updated',
        attempt: 1,
        at: String,
        status: 200,
        latencyMs: Number,
        responseStart: 'ok: received',
        error: null,
      });
      const eventId = log.data[0].eventId;
      const resent = await member.call('POST', `${P}/automations/${id}/deliveries/${eventId}/resend`);
      t.equal(resent.status, 202);
      await waitFor(
        'the event delivered again',
        async () => hook.at('/main').filter((r) => r.headers['x-svc-event-id'] === eventId).length === 2,
      );
      const again = await waitFor('the resend logged', async () => {
        const r = await viewer.call('GET', `${P}/automations/${id}/deliveries?limit=1`);
        return r.body.pagination.total === 4 && r.body;
      });
      t.match(again.data, [{ eventId, attempt: 2, status: 200 }]);
      t.match(await member.call('POST', `${P}/automations/${id}/deliveries/nope/resend`), {
        status: 404,
        body: error('not_found'),
      });

      const patched = await member.call('PATCH', `${P}/automations/${id}`, {
        name: 'renamed',
        events: ['created', 'updated'],
        enabled: false,
      });
      t.match(patched.body, {
        automation: {
          name: 'renamed',
          events: ['created', 'updated'],
          enabled: false,
          action: { headers: ['X-Token'] },
        },
      });
      t.notOk('signingSecret' in patched.body);
      t.match(await member.call('POST', `${P}/automations/${id}/deliveries/${eventId}/resend`), {
        status: 409,
        body: error('conflict'),
      });
      t.match((await member.call('PATCH', `${P}/automations/${id}`, { enabled: true })).body, {
        automation: { enabled: true },
      });
      t.match(
        await member.call('PATCH', `${P}/automations/${id}`, {
          action: { type: 'webhook', url: 'http://192.168.1.1/x' },
        }),
        { status: 400, body: error('invalid_request') },
      );
      t.match(await member.call('PATCH', `${P}/automations/${id}`, {}), {
        status: 400,
        body: error('invalid_request'),
      });

      const rotated = await member.call('POST', `${P}/automations/${id}/rotate-secret`);
      t.match(rotated.body, { signingSecret: /^whsec_/ });
      t.not(rotated.body.signingSecret, secret);
      t.match(await member.call('POST', `${P}/automations/${automationIds.pd}/rotate-secret`), {
        status: 409,
        body: error('conflict'),
      });
      const before = hook.at('/main').length;
      t.equal(
        (await member.call('PUT', `${P}/prompts/folder%2Fgreeting/versions/1/labels`, { labels: ['canary'] })).status,
        200,
      );
      const next = await waitFor(
        'a delivery after the rotation',
        async () => hook.at('/main').length > before && hook.at('/main').at(-1),
      );
      const now = Math.floor(Date.now() / 1000);
      t.ok(
        verifySignature(rotated.body.signingSecret, next.body, String(next.headers['x-svc-signature']), now).ok,
        'signed with the new secret',
      );
      t.notOk(
        verifySignature(secret, next.body, String(next.headers['x-svc-signature']), now).ok,
        'not with the old one',
      );

      t.equal((await member.call('DELETE', `${P}/automations/${automationIds.pd}`)).status, 204);
      t.same(
        (await viewer.call('GET', `${P}/automations`)).body.data.map((a: any) => a.id),
        [id],
      );
      t.match(await viewer.call('GET', `${P}/automations/${automationIds.pd}/deliveries`), {
        status: 404,
        body: error('not_found'),
      });
      t.match(await member.call('DELETE', `${P}/automations/${automationIds.pd}`), {
        status: 404,
        body: error('not_found'),
      });
    });

    t.test(
      'keys: mint, block, unblock, rotate with a grace window, delete — seen by the gateway at once',
      async (t) => {
        const minted = await member.call('POST', `${P}/keys`, {
          agentId: 'agent-b',
          modelGroups: ['demo'],
          expiresInHours: 2,
          alias: 'dash-key',
          budgetUsd: 5,
        });
        t.equal(minted.status, 201);
        t.match(minted.body, {
          id: String,
          key: /^sk-svc-/,
          alias: 'dash-key',
          agentId: 'agent-b',
          modelGroups: ['demo'],
          expiresAt: String,
        });
        const { id, key } = minted.body;
        t.equal(await gatewayAnswer(s, key), '200');
        const list = await viewer.call('GET', `${P}/keys`);
        t.match(
          list.body.data.filter((k: any) => !k.readOnly),
          [
            {
              id,
              alias: 'dash-key',
              state: 'active',
              blocked: false,
              source: 'dashboard',
              budgetUsd: 5,
              budgetPeriod: 'total',
            },
          ],
        );
        t.notOk(/keySha256|key_sha256|sk-svc-/.test(JSON.stringify(list.body)), 'never the hash or the plaintext');

        t.match(
          await member.call('POST', `${P}/keys`, { agentId: 'agent-b', modelGroups: ['nope'], expiresInHours: 1 }),
          { status: 400, body: error('invalid_request') },
        );
        t.match(
          await member.call('POST', `${P}/keys`, { agentId: 'agent-b', modelGroups: ['demo'], expiresInHours: 25 }),
          { status: 400, body: error('invalid_request') },
        );
        t.match(
          await member.call('POST', `${P}/keys`, {
            agentId: 'agent-b',
            modelGroups: ['demo'],
            expiresInHours: 1,
            alias: 'dash-key',
          }),
          { status: 409, body: error('conflict') },
        );

        t.match((await member.call('POST', `${P}/keys/${id}/block`)).body, {
          key: { id, blocked: true, state: 'blocked' },
        });
        t.equal(await gatewayAnswer(s, key), '401 key_blocked');
        t.match((await member.call('POST', `${P}/keys/${id}/unblock`)).body, {
          key: { id, blocked: false, state: 'active' },
        });
        t.equal(await gatewayAnswer(s, key), '200');

        const rotated = await member.call('POST', `${P}/keys/${id}/rotate`, { graceHours: 1 });
        t.equal(rotated.status, 200);
        t.match(rotated.body, {
          key: { id, alias: 'dash-key', state: 'active' },
          plaintext: /^sk-svc-/,
          previous: { alias: /^dash-key\.rotated-/, rotatedAt: String, rotationGraceHours: 1 },
        });
        const fresh = rotated.body.plaintext;
        t.not(fresh, key);
        t.equal(await gatewayAnswer(s, fresh), '200', 'the new key works');
        t.equal(await gatewayAnswer(s, key), '200', 'the old key works during the grace window');
        offsetMs = HOUR - 60_000;
        t.equal(await gatewayAnswer(s, key), '200', 'a minute before the window ends');
        offsetMs = HOUR + 60_000;
        t.equal(await gatewayAnswer(s, key), '401 key_expired', 'past the window');
        t.equal(await gatewayAnswer(s, fresh), '200');
        offsetMs = 0;
        t.match(await member.call('POST', `${P}/keys/${rotated.body.previous.id}/rotate`), {
          status: 409,
          body: error('conflict'),
        });

        t.equal((await member.call('DELETE', `${P}/keys/${id}`)).status, 204);
        t.equal(await gatewayAnswer(s, fresh), '401 invalid_api_key');
        t.match(await member.call('POST', `${P}/keys/${id}/block`), { status: 404, body: error('not_found') });
        t.match(await member.call('DELETE', `${P}/keys/${id}`), { status: 404, body: error('not_found') });
      },
    );

    t.test('keys: those declared in gateway.yaml are listed first, read-only, without their secret', async (t) => {
      const list = await viewer.call('GET', `${P}/keys`);
      t.equal(list.status, 200);
      t.same(list.body.data[0], {
        id: 'test',
        alias: 'test',
        agentId: 'agent-a',
        modelGroups: ['demo'],
        expiresAt: null,
        rotatedAt: null,
        rotationGraceHours: 0,
        graceEndsAt: null,
        blocked: false,
        state: 'active',
        allowedNetworks: null,
        rpm: null,
        tpm: null,
        budgetUsd: 10,
        budgetPeriod: 'total',
        source: 'config',
        createdAt: null,
        readOnly: true,
      });
      t.notOk(JSON.stringify(list.body).includes(TEST_KEY), 'never the plaintext of a configured key');
      t.equal(
        (await viewer.call('GET', '/projects/other/keys')).body.data.length,
        0,
        "another project's configured keys are not listed",
      );
      for (const verb of ['block', 'unblock', 'rotate']) {
        t.match(
          await member.call('POST', `${P}/keys/test/${verb}`),
          { status: 409, body: { error: { code: 'conflict', message: /declared in gateway\.yaml/ } } },
          verb,
        );
      }
      t.match(await member.call('DELETE', `${P}/keys/test`), { status: 409, body: { error: { code: 'conflict' } } });
      t.equal(await gatewayAnswer(s, TEST_KEY), '200', 'the configured key still serves');
    });

    t.test('agents: suspend refuses the agent’s keys with key_blocked, resume restores them', async (t) => {
      const minted = await member.call('POST', `${P}/keys`, {
        agentId: 'agent-b',
        modelGroups: ['demo'],
        expiresInHours: 2,
      });
      const key = minted.body.key;
      const list = await viewer.call('GET', `${P}/agents`);
      t.match(list.body.data, [
        { id: 'agent-a', name: 'Agent A', status: 'active', declaredInConfig: true },
        { id: 'agent-b', name: 'Agent B', status: 'active', declaredInConfig: false },
      ]);
      t.match((await member.call('POST', `${P}/agents/agent-b/suspend`)).body, {
        agent: { id: 'agent-b', status: 'suspended' },
      });
      t.equal(await gatewayAnswer(s, key), '401 key_blocked');
      t.match(
        (await viewer.call('GET', `${P}/keys`)).body.data.find((k: any) => k.id === minted.body.id),
        { state: 'blocked', blocked: false },
      );
      t.match((await member.call('POST', `${P}/agents/agent-b/resume`)).body, {
        agent: { id: 'agent-b', status: 'active' },
      });
      t.equal(await gatewayAnswer(s, key), '200');
      t.match(await member.call('POST', `${P}/agents/nope/suspend`), { status: 404, body: error('not_found') });
    });

    t.test(
      "serving: admins turn the project's gateway serving off (its keys get 401 invalid_api_key) and on again, audited",
      async (t) => {
        await addAgent(db, { id: 'agent-o', projectId: 'other', name: 'Other agent' });
        const otherKey = (
          await owner.call('POST', '/projects/other/keys', {
            agentId: 'agent-o',
            modelGroups: ['demo'],
            expiresInHours: 2,
          })
        ).body.key;
        const mintedKey = (
          await member.call('POST', `${P}/keys`, { agentId: 'agent-b', modelGroups: ['demo'], expiresInHours: 2 })
        ).body.key;
        t.same((await viewer.call('GET', `${P}/serving`)).body, {
          serving: true,
          servingInConfig: true,
          effective: true,
        });
        t.match(
          await member.call('PUT', `${P}/serving`, { serving: false }),
          { status: 403, body: error('permission_denied') },
          'members may not',
        );
        t.match(await owner.call('PUT', `${P}/serving`, { serving: 'no' }), {
          status: 400,
          body: error('invalid_request'),
        });
        t.match(await owner.call('PUT', '/projects/nope/serving', { serving: false }), {
          status: 404,
          body: error('not_found'),
        });
        t.equal(await gatewayAnswer(s, TEST_KEY), '200', 'nothing changed yet');

        const off = await owner.call('PUT', `${P}/serving`, { serving: false });
        t.same(off, { ...off, status: 200, body: { serving: false, servingInConfig: true, effective: false } });
        t.equal(
          await gatewayAnswer(s, TEST_KEY),
          '401 invalid_api_key',
          'a gateway.yaml key of the project is refused at once',
        );
        t.equal(await gatewayAnswer(s, mintedKey), '401 invalid_api_key', 'a minted key of the project too');
        t.equal(await gatewayAnswer(s, otherKey), '200', "another project's key is served");
        const refused = await chat(s, TEST_KEY);
        t.match((await refused.json()) as any, {
          error: { type: 'authentication_error', code: 'invalid_api_key', message: /serving is off/ },
        });

        t.same((await owner.call('PUT', `${P}/serving`, { serving: true })).body, {
          serving: true,
          servingInConfig: true,
          effective: true,
        });
        t.equal(await gatewayAnswer(s, TEST_KEY), '200', 'served again');
        t.equal(await gatewayAnswer(s, mintedKey), '200');

        const rows = (await listAudit(db, 'default', 500)).filter((r) => r.resourceType === 'project');
        t.match(
          rows.filter((r) => r.action === 'project.serving_off'),
          [
            {
              actor: 'dashboard:owner@localhost',
              resourceId: 'default',
              details: { from: true, to: false, servingInConfig: true },
            },
          ],
        );
        t.match(
          rows.filter((r) => r.action === 'project.serving_on'),
          [{ actor: 'dashboard:owner@localhost', resourceId: 'default', details: { from: false, to: true } }],
        );
      },
    );

    t.test('model groups: deployments with health and bench state', async (t) => {
      const r = await viewer.call('GET', '/model-groups');
      t.same(
        r.body.data.map((g: any) => [g.name, g.fallback]),
        [['demo', null]],
      );
      t.match(r.body.data[0].deployments, [
        {
          id: 'demo-mock',
          provider: 'mock',
          model: 'mock-small',
          weight: 1,
          healthy: true,
          benchedUntil: null,
          unavailableReason: null,
        },
      ]);
    });

    t.test('budgets: spend against each budget of the chain in its current period', async (t) => {
      const rows = await waitFor('spend on the key budget', async () => {
        const r = await viewer.call('GET', `${P}/budgets`);
        return r.body.data.find((b: any) => b.scope === 'key' && b.id === 'test' && b.spentUsd > 0) && r.body.data;
      });
      const by = (scope: string, id: string) => rows.find((b: any) => b.scope === scope && b.id === id);
      t.match(by('key', 'test'), {
        name: 'test',
        kind: 'hard',
        period: 'total',
        periodId: 'total',
        limitUsd: 10,
        spentUsd: Number,
      });
      t.match(by('agent', 'agent-a'), {
        name: 'Agent A',
        kind: 'soft',
        period: 'monthly',
        periodId: /^m\d{4}-\d\d$/,
        limitUsd: 100,
      });
      t.match(by('project', 'default'), {
        name: 'Default',
        kind: 'hard',
        period: 'daily',
        periodId: /^d\d+$/,
        limitUsd: 50,
      });
      t.ok(
        by('agent', 'agent-a').spentUsd > 0 && by('project', 'default').spentUsd > 0,
        'the agent and project budgets were charged too',
      );
      t.ok(
        rows.some((b: any) => b.scope === 'key' && b.name.startsWith('dash-key') && b.limitUsd === 5),
        'a minted key with a budget',
      );
      t.equal(
        by('key', 'test').spentUsd,
        by('agent', 'agent-a').spentUsd,
        'every request of the agent went through the key',
      );
    });

    t.test('every change was audited as dashboard:<email>', async (t) => {
      const rows = (await listAudit(db, 'default', 500)).filter((r) => r.actor === 'dashboard:member@example.com');
      const actions = new Set(rows.map((r) => r.action));
      for (const action of [
        'gateway_key.mint',
        'gateway_key.block',
        'gateway_key.unblock',
        'gateway_key.rotate',
        'gateway_key.delete',
        'agent.suspend',
        'agent.resume',
        'automation.create',
        'automation.update',
        'automation.rotate_secret',
        'automation.resend',
        'automation.delete',
      ]) {
        t.ok(actions.has(action), action);
      }
      t.notOk(
        (await listAudit(db, 'default', 500)).some((r) => r.actor === 'dashboard:viewer@example.com'),
        'refused calls changed nothing',
      );
    });
  });
}

t.test('the serving switch set through one process reaches another on the same store within key_poll_ms', async (t) => {
  const shared = { ...config(), store: { key_poll_ms: 200 } };
  const first = await startTestService(t, shared, { backend: 'postgres' });
  const second = await startTestService(t, {
    ...shared,
    store: { ...shared.store, postgres_url: first.service.current().config.store.postgres_url },
  });
  const owner = await signIn(first, 'owner@localhost', first.service.firstOwner!.password);
  const answers = async () => [await gatewayAnswer(first, TEST_KEY), await gatewayAnswer(second, TEST_KEY)].join(', ');
  t.equal(await answers(), '200, 200');
  t.equal((await owner.call('PUT', `${P}/serving`, { serving: false })).status, 200);
  t.equal(await gatewayAnswer(first, TEST_KEY), '401 invalid_api_key', 'the changing process refuses at once');
  // Polled every 200 ms; 1 s leaves room for a slow poll on a loaded machine.
  t.equal(
    await waitFor(
      'the second process refuses',
      async () => (await answers()) === '401 invalid_api_key, 401 invalid_api_key' && 'both',
      1000,
    ),
    'both',
  );
  t.equal((await owner.call('PUT', `${P}/serving`, { serving: true })).status, 200);
  t.equal(
    await waitFor('both processes serve again', async () => (await answers()) === '200, 200' && 'both', 1000),
    'both',
  );
});
