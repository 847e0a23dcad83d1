// Key minting, POST /api/public/v1/gateway/keys (docs/public-api.md): every
// rule at its boundary, the audit row, only the hash stored, and the minted key at the gateway — at once in the
// minting process, and within a second in another process on the same database. Runs against both store backends.
import { hash } from 'node:crypto';
import t, { type Test } from 'tap';
import type { Clock } from '../../src/platform/clock.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { addAgent, setAgentStatus } from '../../src/platform/store/repos/agents.ts';
import { createApiKey, type CreatedApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { listAudit } from '../../src/platform/store/repos/audit-log.ts';
import { baseConfig, chatBody, startTestService, type TestService } from '../helpers/service.ts';
import { STORE_BACKENDS } from '../helpers/store.ts';
import { roomInMinute } from '../helpers/gateways.ts';
import { waitFor } from '../helpers/wait-for.ts';

const HOUR = 3_600_000;
const MAX_HOURS = 24;
const auth = (k: Pick<CreatedApiKey, 'publicKey' | 'secretKey'>) =>
  `Basic ${Buffer.from(`${k.publicKey}:${k.secretKey}`).toString('base64')}`;

/** One token costs $0.001, so a "Hello" request with max_tokens 91 may cost up to $0.10. */
const mockGroup = (name: string) => ({
  name,
  created_at: '2026-01-01T00:00:00Z',
  deployments: [
    {
      id: `${name}-mock`,
      provider: 'mock',
      model: `mock-${name}`,
      price: { input_per_mtok: 1000, output_per_mtok: 1000 },
    },
  ],
});

const config = () =>
  baseConfig({
    projects: [
      { id: 'default', name: 'Default', max_key_expiry_hours: MAX_HOURS },
      { id: 'other', name: 'Other' },
      { id: 'ingest', ingestion_only: true },
    ],
    model_groups: [mockGroup('demo'), mockGroup('second')],
    plugins: [{ use: 'auth' }, { use: 'rate-limit' }, { use: 'budget' }, { use: 'router' }],
  });

function settableClock(): Clock & { at: number | undefined } {
  const clock = { at: undefined as number | undefined, now: () => clock.at ?? Date.now(), sleep: systemClock.sleep };
  return clock;
}

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

async function mint(s: TestService, body: unknown, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(`${s.adminUrl}/api/public/v1/gateway/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

const chat = (s: TestService, key: string, model = 'demo', extra: Record<string, unknown> = {}) =>
  fetch(`${s.gatewayUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(chatBody({ model, ...extra })),
  });

async function gatewayCode(s: TestService, key: string, model = 'demo'): Promise<string | number> {
  const res = await chat(s, key, model);
  const body = (await res.json()) as any;
  return res.status === 200 ? 200 : body.error?.code;
}

/** A 400 (or 409) naming the field first in its message and in details.field. */
function fieldError(t: Test, r: Answer, field: string, reason?: RegExp, status = 400) {
  t.equal(r.status, status, `${status} for ${field}`);
  t.equal(r.body.error, status === 409 ? 'ConflictError' : 'InvalidRequestError');
  t.ok(String(r.body.message).startsWith(`${field}: `), `message names ${field}: ${r.body.message}`);
  if (reason) t.match(r.body.message, reason);
  t.same(r.body.details, { field });
}

for (const backend of STORE_BACKENDS) {
  t.test(`key minting on ${backend}`, async (t) => {
    const clock = settableClock();
    const s = await startTestService(t, config(), { backend, clock });
    const db = s.service.db;
    const now = Date.now();
    const projectKey = await createApiKey(db, {
      kind: 'project',
      organizationId: 'default',
      projectId: 'default',
      now,
    });
    const headers = { authorization: auth(projectKey) };
    const agent = await addAgent(db, { projectId: 'default', name: 'Research bot' });
    const suspended = await addAgent(db, { projectId: 'default', name: 'sleepy', status: 'suspended' });
    const foreign = await addAgent(db, { projectId: 'other', name: 'elsewhere' });
    const valid = (extra: Record<string, unknown> = {}) => ({
      agentId: agent.id,
      modelGroups: ['demo'],
      expiresInHours: 1,
      ...extra,
    });

    t.test('a minted key: 201 with the documented fields, usable at the gateway at once', async (t) => {
      const before = Date.now();
      const r = await mint(s, valid({ expiresInHours: MAX_HOURS }), headers);
      const after = Date.now();
      t.equal(r.status, 201, 'expiresInHours exactly the project maximum');
      t.same(Object.keys(r.body).sort(), ['agentId', 'alias', 'expiresAt', 'id', 'key', 'modelGroups']);
      t.equal(r.body.agentId, agent.id);
      t.same(r.body.modelGroups, ['demo']);
      t.match(r.body.key, /^sk-svc-[A-Za-z0-9_-]{32}$/);
      t.match(r.body.alias, /^Research-bot-[0-9a-f]{8}$/, 'alias generated from the agent name');
      t.match(r.body.expiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const expires = Date.parse(r.body.expiresAt);
      t.ok(
        expires >= before + MAX_HOURS * HOUR && expires <= after + MAX_HOURS * HOUR,
        'expires expiresInHours from now',
      );
      t.equal(r.headers.get('cache-control'), 'no-store');
      t.equal(await gatewayCode(s, r.body.key), 200, 'the gateway of this process accepts it immediately');
      t.equal(await gatewayCode(s, r.body.key, 'second'), 'model_not_allowed', 'a group it was not granted');
    });

    t.test('what is stored: the hash only, the limits, and an audit row without the plaintext', async (t) => {
      const r = await mint(
        s,
        valid({
          alias: 'stored-check',
          budgetUsd: 0,
          rpm: 1,
          tpm: 1,
          allowedNetworks: ['10.0.0.0/8', '::1', '2001:db8::/32'],
        }),
        headers,
      );
      t.equal(r.status, 201, 'budgetUsd 0, rpm 1, tpm 1 and networks are accepted');
      const row = (await db.query<Record<string, any>>('SELECT * FROM gateway_keys WHERE id = $1', [r.body.id]))
        .rows[0];
      t.equal(row.key_sha256, hash('sha256', r.body.key, 'hex'));
      t.notOk(JSON.stringify(row).includes(r.body.key), 'the plaintext is in no column');
      t.match(row, {
        project_id: 'default',
        agent_id: agent.id,
        alias: 'stored-check',
        source: 'minted',
        blocked: false,
        rpm: 1,
        tpm: 1,
      });
      t.equal(Number(row.budget_usd), 0);
      t.same(row.model_groups, ['demo']);
      t.same(row.allowed_networks, ['10.0.0.0/8', '::1', '2001:db8::/32']);
      t.equal(new Date(row.expires_at).toISOString(), r.body.expiresAt);

      const audit = (await listAudit(db, 'default')).find((e) => e.resourceId === r.body.id);
      t.ok(audit, 'an audit row for the key');
      t.match(audit, {
        organizationId: 'default',
        projectId: 'default',
        actor: `api-key:${projectKey.id}`,
        action: 'gateway_key.mint',
        resourceType: 'gateway_key',
        details: {
          alias: 'stored-check',
          agentId: agent.id,
          modelGroups: ['demo'],
          expiresAt: r.body.expiresAt,
          rpm: 1,
          tpm: 1,
          budgetUsd: 0,
        },
      });
      const everything = JSON.stringify((await db.query('SELECT * FROM audit_log')).rows);
      t.notOk(everything.includes(r.body.key), 'the plaintext is in no audit row');
    });

    t.test('aliases: generated ones differ, a given one is kept, reuse is 409', async (t) => {
      const a = await mint(s, valid(), headers);
      const b = await mint(s, valid(), headers);
      t.equal(a.status, 201);
      t.equal(b.status, 201);
      t.not(a.body.alias, b.body.alias);
      const alias = 'ci.key_1:a-b';
      const given = await mint(s, valid({ alias }), headers);
      t.equal(given.status, 201);
      t.equal(given.body.alias, alias);
      fieldError(t, await mint(s, valid({ alias }), headers), 'alias', /ci\.key_1:a-b/, 409);
      t.equal((await mint(s, valid({ alias: 'x'.repeat(64) }), headers)).status, 201, 'alias of 64 characters');
      fieldError(t, await mint(s, valid({ alias: 'y'.repeat(65) }), headers), 'alias', /1 to 64/);
      fieldError(t, await mint(s, valid({ alias: '' }), headers), 'alias');
      fieldError(t, await mint(s, valid({ alias: 'has space' }), headers), 'alias');
      fieldError(t, await mint(s, valid({ alias: 7 }), headers), 'alias', /must be a string/);
    });

    t.test('required fields and their rules', async (t) => {
      fieldError(t, await mint(s, { modelGroups: ['demo'], expiresInHours: 1 }, headers), 'agentId', /is required/);
      fieldError(t, await mint(s, valid({ agentId: '' }), headers), 'agentId');
      fieldError(t, await mint(s, valid({ agentId: 'no-such-agent' }), headers), 'agentId', /no agent 'no-such-agent'/);
      fieldError(t, await mint(s, valid({ agentId: foreign.id }), headers), 'agentId', /no agent/);
      fieldError(t, await mint(s, valid({ agentId: suspended.id }), headers), 'agentId', /suspended/);

      fieldError(t, await mint(s, { agentId: agent.id, expiresInHours: 1 }, headers), 'modelGroups', /is required/);
      fieldError(t, await mint(s, valid({ modelGroups: [] }), headers), 'modelGroups', /at least one/);
      fieldError(
        t,
        await mint(s, valid({ modelGroups: ['nope'] }), headers),
        'modelGroups',
        /unknown model group 'nope'/,
      );
      fieldError(t, await mint(s, valid({ modelGroups: ['demo', 'nope'] }), headers), 'modelGroups', /'nope'/);
      fieldError(t, await mint(s, valid({ modelGroups: ['demo', 'demo'] }), headers), 'modelGroups', /twice/);
      fieldError(t, await mint(s, valid({ modelGroups: [''] }), headers), 'modelGroups', /empty/);
      fieldError(t, await mint(s, valid({ modelGroups: 'demo' }), headers), 'modelGroups', /must be an array/);
      const two = await mint(s, valid({ modelGroups: ['demo', 'second'] }), headers);
      t.equal(two.status, 201, 'two known groups');
      t.equal(await gatewayCode(s, two.body.key, 'second'), 200);

      fieldError(
        t,
        await mint(s, { agentId: agent.id, modelGroups: ['demo'] }, headers),
        'expiresInHours',
        /is required/,
      );
      fieldError(
        t,
        await mint(s, valid({ expiresInHours: MAX_HOURS + 0.001 }), headers),
        'expiresInHours',
        /at most 24 \(the project's maximum/,
      );
      fieldError(t, await mint(s, valid({ expiresInHours: MAX_HOURS + 1 }), headers), 'expiresInHours', /at most 24/);
      fieldError(t, await mint(s, valid({ expiresInHours: 0 }), headers), 'expiresInHours', /greater than 0/);
      fieldError(t, await mint(s, valid({ expiresInHours: -1 }), headers), 'expiresInHours');
      fieldError(t, await mint(s, valid({ expiresInHours: '1' }), headers), 'expiresInHours', /must be a number/);
      t.equal((await mint(s, valid({ expiresInHours: 0.001 }), headers)).status, 201, 'a fraction of an hour');
    });

    t.test('optional fields at their bounds', async (t) => {
      fieldError(t, await mint(s, valid({ budgetUsd: -0.01 }), headers), 'budgetUsd', /at least 0/);
      fieldError(t, await mint(s, valid({ rpm: 0 }), headers), 'rpm', /at least 1/);
      fieldError(t, await mint(s, valid({ rpm: 1.5 }), headers), 'rpm', /integer/);
      fieldError(t, await mint(s, valid({ tpm: 0 }), headers), 'tpm', /at least 1/);
      t.equal((await mint(s, valid({ tpm: 2147483647 }), headers)).status, 201, 'tpm 2^31-1');
      fieldError(t, await mint(s, valid({ tpm: 2147483648 }), headers), 'tpm', /at most/);
      t.equal((await mint(s, valid({ budgetUsd: 1_000_000 }), headers)).status, 201, 'budgetUsd 1,000,000');
      fieldError(t, await mint(s, valid({ budgetUsd: 1_000_000.01 }), headers), 'budgetUsd', /at most 1000000/);
      // JSON.stringify cannot write these: 1e309 parses as Infinity, which must not be stored as a budget.
      const withNumber = (field: string, text: string) =>
        JSON.stringify(valid({ [field]: 0 })).replace(`"${field}":0`, `"${field}":${text}`);
      for (const [field, reason] of [
        ['budgetUsd', /at most 1000000/],
        ['rpm', /at most 2147483647/],
        ['tpm', /at most 2147483647/],
        ['expiresInHours', /at most 24/],
      ] as const) {
        fieldError(t, await mint(s, withNumber(field, '1e309'), headers), field, reason);
        fieldError(t, await mint(s, withNumber(field, '1e300'), headers), field, reason);
        fieldError(t, await mint(s, withNumber(field, '-1e309'), headers), field);
      }
      fieldError(t, await mint(s, valid({ allowedNetworks: [] }), headers), 'allowedNetworks', /omit it/);
      fieldError(
        t,
        await mint(s, valid({ allowedNetworks: ['10.0.0.0/33'] }), headers),
        'allowedNetworks',
        /10\.0\.0\.0\/33/,
      );
      fieldError(
        t,
        await mint(s, valid({ allowedNetworks: ['10.0.0'] }), headers),
        'allowedNetworks',
        /not an IPv4 or IPv6/,
      );
      fieldError(t, await mint(s, valid({ allowedNetworks: ['nope'] }), headers), 'allowedNetworks');
      fieldError(t, await mint(s, valid({ unexpected: true }), headers), 'unexpected', /not a known field/);
      fieldError(t, await mint(s, '[]', headers), 'body', /JSON object/);
      fieldError(t, await mint(s, 'null', headers), 'body', /JSON object/);
    });

    t.test('framing, keys and key kinds', async (t) => {
      const badJson = await mint(s, '{"agentId":', headers);
      t.equal(badJson.status, 400);
      t.equal(badJson.body.error, 'InvalidRequestError');
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const r = await mint(s, JSON.stringify(valid()), { ...headers, 'content-type': type });
        t.equal(r.status, 415, type);
        t.same(r.body, { message: 'Content-Type must be application/json', error: 'UnsupportedMediaTypeError' });
      }
      t.equal(
        (await mint(s, valid(), { ...headers, 'content-type': 'application/json; charset=utf-8' })).status,
        201,
        'JSON with a charset',
      );
      const padded = (bytes: number) => {
        const empty = JSON.stringify({ ...valid(), pad: '' });
        return JSON.stringify({ ...valid(), pad: 'x'.repeat(bytes - empty.length) });
      };
      t.equal(padded(4_718_592).length, 4_718_592);
      fieldError(t, await mint(s, padded(4_718_592), headers), 'pad', /not a known field/);
      const tooLarge = await mint(s, padded(4_718_593), headers);
      t.equal(tooLarge.status, 413, 'one byte over the admin body limit');
      t.equal(tooLarge.body.error, 'PayloadTooLargeError');
      const res = await fetch(`${s.adminUrl}/api/public/v1/gateway/keys`, {
        method: 'POST',
        headers,
        body: JSON.stringify(valid()),
      });
      t.equal(res.status, 415, 'no Content-Type');
      const noKey = await mint(s, JSON.stringify(valid()), { 'content-type': 'text/plain' });
      t.equal(noKey.status, 401, 'the key is checked before the body');
      t.equal(noKey.body.message, 'No authorization header');

      const orgKey = await createApiKey(db, { kind: 'organization', organizationId: 'default', now });
      const byOrg = await mint(s, valid(), { authorization: auth(orgKey) });
      t.equal(byOrg.status, 401);
      t.equal(byOrg.body.message, 'Invalid API key. Are you using an organization key?');
      const ingestKey = await createApiKey(db, {
        kind: 'project',
        organizationId: 'default',
        projectId: 'ingest',
        now,
      });
      const byIngest = await mint(s, valid(), { authorization: auth(ingestKey) });
      t.equal(byIngest.status, 403, 'ingestion-only projects cannot mint');
      t.equal(byIngest.body.error, 'ForbiddenError');
      const otherKey = await createApiKey(db, { kind: 'project', organizationId: 'default', projectId: 'other', now });
      fieldError(t, await mint(s, valid(), { authorization: auth(otherKey) }), 'agentId', /no agent/);
      const get = await fetch(`${s.adminUrl}/api/public/v1/gateway/keys`, { headers });
      t.equal(get.status, 405);
      t.equal(get.headers.get('allow'), 'POST');
    });

    t.test('the gateway enforces what was minted', async (t) => {
      const netted = await mint(s, valid({ allowedNetworks: ['10.0.0.0/8'] }), headers);
      t.equal(await gatewayCode(s, netted.body.key), 'ip_not_allowed', 'from 127.0.0.1');
      const open = await mint(s, valid({ allowedNetworks: ['127.0.0.1'] }), headers);
      t.equal(await gatewayCode(s, open.body.key), 200, 'from an allowed address');

      const shortLived = await mint(s, valid({ expiresInHours: 1 }), headers);
      t.teardown(() => {
        clock.at = undefined;
      });
      clock.at = Date.parse(shortLived.body.expiresAt) - 1;
      t.equal(await gatewayCode(s, shortLived.body.key), 200, 'a millisecond before expiry');
      clock.at = Date.parse(shortLived.body.expiresAt);
      t.equal(await gatewayCode(s, shortLived.body.key), 'key_expired', 'at expiry');
      clock.at = undefined;

      const bot = await addAgent(db, { projectId: 'default', name: 'to-suspend' });
      const key = await mint(s, valid({ agentId: bot.id }), headers);
      t.equal(await gatewayCode(s, key.body.key), 200);
      await setAgentStatus(db, 'default', bot.id, 'suspended');
      await s.service.keyStore.refresh();
      t.equal(await gatewayCode(s, key.body.key), 'key_blocked', 'its agent suspended');
    });

    t.test('a minted key keeps to its rpm, tpm and budgetUsd', async (t) => {
      const limited = await mint(s, valid({ rpm: 2 }), headers);
      await roomInMinute(3);
      const codes = [];
      for (let i = 0; i < 3; i++) codes.push(await gatewayCode(s, limited.body.key));
      t.same(codes, [200, 200, 'rate_limit_exceeded']);

      const tokens = await mint(s, valid({ tpm: 100 }), headers);
      t.equal(
        (await chat(s, tokens.body.key, 'demo', { max_tokens: 92 })).status,
        429,
        'a worst case of 101 tokens is over 100 tpm',
      );
      t.equal((await chat(s, tokens.body.key, 'demo', { max_tokens: 91 })).status, 200, 'one of exactly 100 passes');

      const budgeted = await mint(s, valid({ budgetUsd: 0.1 }), headers);
      const over = await chat(s, budgeted.body.key, 'demo', { max_tokens: 92 });
      t.equal(over.status, 429);
      t.match(await over.json(), {
        error: {
          code: 'budget_exceeded',
          message: new RegExp(`key '${budgeted.body.alias}' has \\$0\\.10 of its total budget of \\$0\\.10 left`),
        },
      });
      t.equal(
        (await chat(s, budgeted.body.key, 'demo', { max_tokens: 91 })).status,
        200,
        'a worst case of exactly $0.10 fits',
      );
    });
  });
}

t.test('another process on the same database sees a minted key and a suspension within a second', async (t) => {
  const first = await startTestService(t, config(), { backend: 'postgres' });
  const postgresUrl = first.service.current().config.store.postgres_url;
  t.match(postgresUrl, /^postgres:/);
  const second = await startTestService(t, { ...config(), store: { postgres_url: postgresUrl } });
  const db = first.service.db;
  const projectKey = await createApiKey(db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: Date.now(),
  });
  const agent = await addAgent(db, { projectId: 'default', name: 'shared' });

  const r = await mint(
    first,
    { agentId: agent.id, modelGroups: ['demo'], expiresInHours: 1 },
    { authorization: auth(projectKey) },
  );
  t.equal(r.status, 201);
  await waitFor(
    'the second gateway accepts the key within 1 s',
    async () => (await gatewayCode(second, r.body.key)) === 200,
    1000,
  );

  await setAgentStatus(db, 'default', agent.id, 'suspended');
  await waitFor(
    'and blocks it within 1 s of the suspension',
    async () => (await gatewayCode(second, r.body.key)) === 'key_blocked',
    1000,
  );
});
