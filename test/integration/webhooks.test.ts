// Prompt-version webhooks on both store backends, against a real node:http receiver on 127.0.0.1 that verifies every
// signature with the secret `svc automations create` printed: events recorded in the changing transaction (none on
// rollback), signed deliveries, retries with backoff after 500s and timeouts, the attempt log, disabling after five
// failed events, the SSRF refusal, durability across a restart, Slack and PagerDuty bodies, and (Postgres) two
// services on one database delivering each event once.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import t from 'tap';
import { startService } from '../../src/runtime/service.ts';
import type { Queryable } from '../../src/platform/store/database.ts';
import { listDeliveryAttempts } from '../../src/platform/store/repos/automations.ts';
import { silentLogger } from '../../src/platform/telemetry/logger.ts';
import { verifySignature } from '../../src/observability/webhooks/signature.ts';
import type { PromptVersionEvent } from '../../src/platform/store/repos/prompt-version-events.ts';
import { runCli } from '../helpers/cli.ts';
import { listenLocally } from '../helpers/local-server.ts';
import { baseConfig, startTestService, type TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';
import { sleep, waitFor } from '../helpers/wait-for.ts';

// Both store backends run real retry backoffs and restarts: about 100 s on a quiet 2-core run, past tap's 120 s
// default on a busy one. The limit guards a hang.
t.setTimeout(300_000);

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  verified: boolean;
}

/** A receiver whose answers are scripted per path: a status, or 'hang' (never answers). Default 200. */
async function receiver(t: { teardown(fn: () => unknown): void }) {
  const received: Received[] = [];
  const script: Record<string, (number | 'hang')[]> = {};
  const secrets: Record<string, string> = {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const secret = secrets[path];
      const sig = req.headers['x-svc-signature'];
      const verified =
        secret !== undefined &&
        typeof sig === 'string' &&
        verifySignature(secret, body, sig, Math.floor(Date.now() / 1000)).ok;
      received.push({ path, headers: req.headers, body, verified });
      const next = script[path]?.shift() ?? 200;
      if (next === 'hang') return;
      res.writeHead(next, { 'content-type': 'text/plain' }).end(next === 200 ? 'ok' : 'x'.repeat(2_000));
    });
  });
  const local = await listenLocally(server);
  t.teardown(() => {
    server.closeAllConnections();
    return local.close();
  });
  return { url: local.url, received, script, secrets, at: (path: string) => received.filter((r) => r.path === path) };
}

const WEBHOOKS = {
  allow_private_networks: true,
  timeout_ms: 400,
  max_attempts: 3,
  retry_base_ms: 40,
  retry_max_ms: 150,
  poll_ms: 30,
};

let n = 0;
function event(action: PromptVersionEvent['action'], project = 'default'): PromptVersionEvent {
  n++;
  return {
    action,
    prompt: {
      id: `pv-${n}`,
      name: 'greeting',
      version: n,
      projectId: project,
      labels: ['production'],
      prompt: 'Hello {{name}}',
      type: 'text',
      config: { temperature: 0.2 },
      commitMessage: 'first',
      tags: ['demo'],
      createdAt: '2026-11-23T10:00:00.000Z',
      updatedAt: '2026-11-23T10:00:00.000Z',
    },
  };
}

async function create(s: TestService, args: string[]): Promise<Record<string, any>> {
  const r = await runCli([
    'automations',
    'create',
    '--project',
    'default',
    ...args,
    '--json',
    '--config',
    s.configPath,
  ]);
  if (r.code !== 0) throw new Error(`svc automations create: ${r.code} ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function record(s: TestService, ...events: PromptVersionEvent[]): Promise<void> {
  await s.service.db.transaction((tx: Queryable) => s.service.promptVersionEvents.record(tx, events));
}

const outboxStates = async (s: TestService, automation: string) =>
  (
    await s.service.db.query<{ state: string }>(
      'SELECT state FROM webhook_outbox WHERE automation_id = $1 ORDER BY id',
      [automation],
    )
  ).rows.map((r) => r.state);

for (const backend of STORE_BACKENDS) {
  t.test(`${backend}: prompt-version webhooks`, async (t) => {
    const hook = await receiver(t);
    const s = await startTestService(t, baseConfig({ webhooks: { ...WEBHOOKS, pagerduty_url: `${hook.url}/pd` } }), {
      backend,
    });

    t.test('signed delivery of created, updated and deleted; the secret printed once', async (t) => {
      const human = await runCli([
        'automations',
        'create',
        '--project',
        'default',
        '--url',
        `${hook.url}/human`,
        '--config',
        s.configPath,
      ]);
      t.equal(human.code, 0, human.stderr);
      t.match(human.stdout, /signing secret: whsec_[A-Za-z0-9_-]{43}\nThe signing secret is shown once/);
      const a = await create(s, ['--url', `${hook.url}/main`, '--name', 'main hook', '--header', 'X-Team=prompts']);
      t.match(a, {
        projectId: 'default',
        name: 'main hook',
        type: 'webhook',
        enabled: true,
        actions: ['created', 'updated', 'deleted'],
        signingSecret: /^whsec_/,
      });
      hook.secrets['/main'] = a.signingSecret;
      const listed = await runCli(['automations', 'list', '--json', '--config', s.configPath]);
      t.notMatch(listed.stdout, /whsec_/, 'list never shows a secret');
      t.equal(JSON.parse(listed.stdout).length, 2);

      const events = [event('created'), event('updated'), event('deleted')];
      await record(s, ...events);
      const got = await waitFor('three deliveries', async () => hook.at('/main').length >= 3 && hook.at('/main'));
      t.ok(
        got.every((r) => r.verified),
        'every signature verifies with the printed secret',
      );
      t.ok(got.every((r) => r.headers['x-team'] === 'prompts' && r.headers['content-type'] === 'application/json'));
      const bodies = got.map((r) => JSON.parse(r.body)).sort((x, y) => x.prompt.version - y.prompt.version);
      t.same(
        bodies.map((b) => b.action),
        ['created', 'updated', 'deleted'],
      );
      for (const [i, b] of bodies.entries()) {
        t.same(Object.keys(b), ['id', 'timestamp', 'type', 'apiVersion', 'action', 'prompt']);
        t.match(b, { type: 'prompt-version', apiVersion: 'v1', timestamp: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/ });
        t.same(b.prompt, events[i]!.prompt);
        t.equal(got.find((r) => JSON.parse(r.body).id === b.id)!.headers['x-svc-event-id'], b.id);
      }
      t.match(got[0]!.headers['x-svc-signature'], /^t=\d{10},v1=[0-9a-f]{64}$/);
      await waitFor('outbox delivered', async () => (await outboxStates(s, a.id)).every((x) => x === 'delivered'));
      const deliveries = await runCli([
        'automations',
        'deliveries',
        '--automation',
        a.id,
        '--json',
        '--config',
        s.configPath,
      ]);
      t.equal(deliveries.code, 0, deliveries.stderr);
      t.match(JSON.parse(deliveries.stdout), [
        { attempt: 1, status: 200, response: 'ok', error: null, state: 'delivered' },
        {},
        {},
      ]);
      await runCli(['automations', 'delete', '--automation', a.id, '--config', s.configPath]);
      await runCli([
        'automations',
        'delete',
        '--automation',
        JSON.parse(listed.stdout)[0].id,
        '--config',
        s.configPath,
      ]);
    });

    t.test('recorded in the caller transaction: nothing when it rolls back', async (t) => {
      const a = await create(s, ['--url', `${hook.url}/tx`, '--actions', 'created']);
      await t.rejects(
        s.service.db.transaction(async (tx) => {
          await s.service.promptVersionEvents.record(tx, [event('created')]);
          throw new Error('rolled back');
        }),
        /rolled back/,
      );
      await record(s, event('updated'), event('deleted'));
      t.same(
        await outboxStates(s, a.id),
        [],
        'nothing from the rolled-back transaction, nothing for actions outside the trigger',
      );
      await record(s, event('created', 'other-project'));
      t.same(await outboxStates(s, a.id), [], 'nor for another project');
      await runCli(['automations', 'delete', '--automation', a.id, '--config', s.configPath]);
    });

    t.test(
      'retries with backoff after 500s and a timeout; every attempt logged with status, latency and 1 KB',
      async (t) => {
        const a = await create(s, ['--url', `${hook.url}/flaky`]);
        hook.secrets['/flaky'] = a.signingSecret;
        hook.script['/flaky'] = [500, 500];
        await record(s, event('created'));
        await waitFor('delivered after two 500s', async () => (await outboxStates(s, a.id))[0] === 'delivered');
        const got = hook.at('/flaky');
        t.equal(got.length, 3);
        t.ok(got.every((r) => r.verified));
        t.equal(new Set(got.map((r) => r.body)).size, 1, 'every retry sends the same bytes');
        const attempts = (await listDeliveryAttempts(s.service.db, a.id)).reverse();
        t.match(attempts, [
          { attempt: 1, status: 500, error: 'HTTP 500' },
          { attempt: 2, status: 500, error: 'HTTP 500' },
          { attempt: 3, status: 200, error: null, response: 'ok' },
        ]);
        t.equal(attempts[0]!.response!.length, 1024, 'the first 1 KB of the answer');
        t.ok(attempts.every((x) => typeof x.latencyMs === 'number' && x.latencyMs >= 0));

        hook.script['/flaky'] = ['hang'];
        await record(s, event('updated'));
        await waitFor(
          'delivered after a timeout',
          async () => (await outboxStates(s, a.id))[1] === 'delivered',
          15_000,
        );
        const timedOut = (await listDeliveryAttempts(s.service.db, a.id))
          .filter((x) => x.action === 'updated')
          .reverse();
        t.match(timedOut, [
          { attempt: 1, status: null, error: /timed out after 400 ms/ },
          { attempt: 2, status: 200 },
        ]);
        t.ok(timedOut[0]!.latencyMs >= 350, 'the attempt lasted its timeout');
        await runCli(['automations', 'delete', '--automation', a.id, '--config', s.configPath]);
      },
    );

    t.test('disabled after 5 consecutive failed events; enabled again by the CLI', async (t) => {
      const a = await create(s, ['--url', `${hook.url}/down`]);
      hook.script['/down'] = Array(40).fill(503);
      for (let i = 0; i < 4; i++) await record(s, event('created'));
      await waitFor(
        'four failed events',
        async () => (await outboxStates(s, a.id)).filter((x) => x === 'failed').length === 4,
      );
      let listed = JSON.parse(
        (await runCli(['automations', 'list', '--project', 'default', '--json', '--config', s.configPath])).stdout,
      );
      t.match(
        listed.find((x: any) => x.id === a.id),
        { enabled: true, consecutiveFailures: 4 },
        'four failed events: still enabled',
      );
      t.equal(hook.at('/down').length, 12, 'each event had its 3 attempts');
      await record(s, event('created'));
      await waitFor(
        'the fifth failed event',
        async () => (await outboxStates(s, a.id)).filter((x) => x === 'failed').length === 5,
      );
      listed = JSON.parse((await runCli(['automations', 'list', '--json', '--config', s.configPath])).stdout);
      t.match(
        listed.find((x: any) => x.id === a.id),
        {
          enabled: false,
          consecutiveFailures: 5,
          disabledReason: /^5 consecutive events failed; last error: HTTP 503/,
        },
      );
      await record(s, event('created'));
      t.equal((await outboxStates(s, a.id)).length, 5, 'a disabled automation records no events');
      const enabled = await runCli(['automations', 'enable', '--automation', a.id, '--json', '--config', s.configPath]);
      t.match(JSON.parse(enabled.stdout), { enabled: true, consecutiveFailures: 0, disabledReason: null });
      hook.script['/down'] = [];
      await record(s, event('created'));
      await waitFor(
        'delivered once the receiver is back',
        async () => (await outboxStates(s, a.id))[5] === 'delivered',
      );
      await runCli(['automations', 'delete', '--automation', a.id, '--config', s.configPath]);
    });

    t.test('Slack and PagerDuty bodies', async (t) => {
      const slack = await create(s, ['--type', 'slack', '--url', `${hook.url}/slack`]);
      t.equal(slack.signingSecret, null, 'only webhooks get a signing secret');
      const pd = await create(s, ['--type', 'pagerduty', '--routing-key', 'R0UTING', '--actions', 'deleted']);
      const e = event('deleted');
      await record(s, e);
      const [sl] = await waitFor('slack', async () => hook.at('/slack').length > 0 && hook.at('/slack'));
      t.same(JSON.parse(sl!.body), {
        text: `Prompt 'greeting' version ${e.prompt.version} deleted in project 'default' (labels: production)`,
      });
      const [p] = await waitFor('pagerduty', async () => hook.at('/pd').length > 0 && hook.at('/pd'));
      const body = JSON.parse(p!.body);
      t.match(body, {
        routing_key: 'R0UTING',
        event_action: 'trigger',
        payload: { summary: /^Prompt 'greeting' version \d+ deleted/, source: 'svc', severity: 'info' },
      });
      t.match(body.payload.custom_details, { type: 'prompt-version', action: 'deleted', prompt: e.prompt });
      t.equal(p!.headers['x-svc-signature'], undefined);
      for (const x of [slack, pd])
        await runCli(['automations', 'delete', '--automation', x.id, '--config', s.configPath]);
    });

    t.test('private addresses refused when allow_private_networks is off (after a reload)', async (t) => {
      const a = await create(s, ['--url', `${hook.url}/private`]);
      s.writeConfig(baseConfig({ webhooks: { ...WEBHOOKS, max_attempts: 1, allow_private_networks: false } }));
      t.same(await s.service.reload(), { ok: true });
      await record(s, event('created'));
      await waitFor('refused', async () => (await outboxStates(s, a.id))[0] === 'failed');
      t.match(await listDeliveryAttempts(s.service.db, a.id), [
        { status: null, error: /refused: 127\.0\.0\.1, a loopback address/ },
      ]);
      t.equal(hook.at('/private').length, 0, 'the receiver was never reached');
      s.writeConfig(baseConfig({ webhooks: { ...WEBHOOKS, pagerduty_url: `${hook.url}/pd` } }));
      t.same(await s.service.reload(), { ok: true });
      await runCli(['automations', 'delete', '--automation', a.id, '--config', s.configPath]);
    });

    t.test('delivery counters on /metrics; finished events pruned after the retention', async (t) => {
      const json = (await (await fetch(`${s.adminUrl}/metrics`)).json()) as any;
      const stats = json.telemetry.webhooks;
      t.ok(
        stats.attempts >= 3 && stats.delivered >= 2 && stats.failed_events >= 5 && stats.disabled >= 1,
        JSON.stringify(stats),
      );
      const text = await (await fetch(`${s.adminUrl}/metrics?format=prometheus`)).text();
      t.match(text, new RegExp(`^svc_webhook_attempts_total ${stats.attempts}$`, 'm'));
      t.match(text, /^svc_webhook_automations_disabled_total [1-9]/m);

      const a = await create(s, ['--url', `${hook.url}/prune`]);
      const flagsFirst = await runCli([
        'automations',
        '--config',
        s.configPath,
        '--json',
        'list',
        '--project',
        'default',
      ]);
      t.equal(flagsFirst.code, 0, 'flags before the subcommand are read');
      t.ok(JSON.parse(flagsFirst.stdout).some((x: any) => x.id === a.id));
      hook.script['/prune'] = [];
      await record(s, event('created'), event('updated'));
      await waitFor('both delivered', async () => (await outboxStates(s, a.id)).join() === 'delivered,delivered');
      const db = s.service.db;
      const [old, recent] = (
        await db.query<{ id: string }>('SELECT id FROM webhook_outbox WHERE automation_id = $1 ORDER BY id', [a.id])
      ).rows.map((r) => r.id);
      // The default retention is 30 days: one event finished 31 days ago, the other a day short of it.
      await db.query("UPDATE webhook_outbox SET finished_at = now() - interval '31 days' WHERE id = $1", [old]);
      await db.query("UPDATE webhook_outbox SET finished_at = now() - interval '29 days' WHERE id = $1", [recent]);
      await db.query(
        "INSERT INTO webhook_outbox (event_id, automation_id, action, body, created_at) VALUES ($1, $2, $3, $4, now() - interval '90 days')",
        ['ev-pending', a.id, 'created', '{}'],
      );
      const pruned = await s.service.webhooks.prune();
      t.ok(pruned >= 1, 'pruned');
      const left = (
        await db.query<{ id: string; state: string }>(
          'SELECT id, state FROM webhook_outbox WHERE automation_id = $1 ORDER BY id',
          [a.id],
        )
      ).rows;
      t.same(
        left.map((r) => [String(r.id), r.state]),
        [
          [String(recent), 'delivered'],
          [String(left[1]!.id), 'pending'],
        ],
        'the old finished event is gone; recent and pending ones stay',
      );
      t.equal(
        (await db.query('SELECT 1 FROM webhook_attempts WHERE outbox_id = $1', [old])).rows.length,
        0,
        'its attempts went with it',
      );
      t.equal((await db.query('SELECT 1 FROM webhook_attempts WHERE outbox_id = $1', [recent])).rows.length, 1);
      await db.query("DELETE FROM webhook_outbox WHERE event_id = 'ev-pending'");
      await runCli(['automations', 'delete', '--automation', a.id, '--config', s.configPath]);
    });

    t.test('no event lost across a restart', async (t) => {
      // Enough attempts that the events are still pending (not failed) when the service stops.
      s.writeConfig(baseConfig({ webhooks: { ...WEBHOOKS, max_attempts: 50 } }));
      t.same(await s.service.reload(), { ok: true });
      const a = await create(s, ['--url', `${hook.url}/restart`]);
      hook.secrets['/restart'] = a.signingSecret;
      hook.script['/restart'] = Array(10).fill(500);
      const events = [event('created'), event('updated')];
      await record(s, ...events);
      await waitFor('first attempts failed', async () => hook.at('/restart').length >= 2);
      await s.service.stop();
      t.ok(
        hook.at('/restart').every((r) => r.verified),
        'the failed attempts were signed too',
      );
      hook.script['/restart'] = [];
      const again = await startService({
        configPath: s.configPath,
        log: silentLogger,
        watch: false,
        processMetrics: false,
      });
      t.teardown(() => again.stop());
      await waitFor('delivered after the restart', async () => {
        const r = await again.db.query<{ state: string }>('SELECT state FROM webhook_outbox WHERE automation_id = $1', [
          a.id,
        ]);
        return r.rows.length === 2 && r.rows.every((x) => x.state === 'delivered');
      });
      const delivered = new Set(
        hook
          .at('/restart')
          .filter((r) => r.verified)
          .map((r) => JSON.parse(r.body).prompt.id),
      );
      t.same([...delivered].sort(), events.map((e) => e.prompt.id).sort());
    });
  });
}

t.test('postgres: two services on one database deliver each event once', async (t) => {
  const hook = await receiver(t);
  const s = await startTestService(t, baseConfig({ webhooks: { ...WEBHOOKS, poll_ms: 10 } }), { backend: 'postgres' });
  const other = await startService({
    configPath: s.configPath,
    log: silentLogger,
    watch: false,
    processMetrics: false,
  });
  t.teardown(() => other.stop());
  const a = await create(s, ['--url', `${hook.url}/pair`]);
  hook.secrets['/pair'] = a.signingSecret;
  const events = Array.from({ length: 40 }, (_, i) => event(i % 2 ? 'updated' : 'created'));
  for (const e of events) await record(s, e);
  await waitFor(
    'all delivered',
    async () => hook.at('/pair').length >= 40 && (await outboxStates(s, a.id)).every((x) => x === 'delivered'),
  );
  await sleep(300);
  const ids = hook.at('/pair').map((r) => JSON.parse(r.body).id);
  t.equal(ids.length, 40, 'forty deliveries');
  t.equal(new Set(ids).size, 40, 'no event twice');
  t.ok(hook.at('/pair').every((r) => r.verified));
  t.ok(s.service.webhooks.stats.delivered > 0 && other.webhooks.stats.delivered > 0, 'both services delivered some');
});

t.test('postgres: a prompt created, relabelled and deleted through the public API is delivered', async (t) => {
  const hook = await receiver(t);
  const s = await startTestService(t, baseConfig({ webhooks: WEBHOOKS }), { backend: 'postgres' });
  const key = s.service.createdApiKeys.find((k) => k.projectId === 'default')!;
  const auth = `Basic ${Buffer.from(`${key.publicKey}:${key.secretKey}`).toString('base64')}`;
  const a = await create(s, ['--url', `${hook.url}/api`]);
  hook.secrets['/api'] = a.signingSecret;
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${s.adminUrl}/api/public${path}`, {
      method,
      headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  const created = await api('POST', '/v2/prompts', {
    name: 'hello',
    type: 'text',
    prompt: 'Hi {{x}}',
    labels: ['production'],
  });
  t.equal(created.status, 201, await created.clone().text());
  t.equal((await api('PATCH', '/v2/prompts/hello/versions/1', { newLabels: ['staging'] })).status, 200);
  t.ok([200, 204].includes((await api('DELETE', '/v2/prompts/hello')).status));
  const got = await waitFor('three events', async () => hook.at('/api').length >= 3 && hook.at('/api'));
  t.ok(got.every((r) => r.verified));
  const bodies = got.map((r) => JSON.parse(r.body));
  t.same(new Set(bodies.map((b) => b.action)), new Set(['created', 'updated', 'deleted']));
  t.match(
    bodies.find((b) => b.action === 'created'),
    {
      type: 'prompt-version',
      apiVersion: 'v1',
      prompt: { name: 'hello', version: 1, projectId: 'default', prompt: 'Hi {{x}}' },
    },
  );
});
